const regions = new Intl.DisplayNames(['en'], { type: 'region' });

export function countryLabel(code: string): string {
  try {
    return regions.of(code) ?? code;
  } catch {
    return code;
  }
}

/** "finance_and_banking" -> "Finance and Banking". */
export function categoryLabel(slug: string): string {
  return slug
    .split(/[_-]+/)
    .map((w) => (w === 'and' ? w : w.charAt(0).toUpperCase() + w.slice(1)))
    .join(' ');
}
