/** Text rules shared by both engines and the services (see "Words" in ad-store.port.ts). */

const NON_WORD = /[^\p{L}\p{N}]+/u;

/** Lower-cased words: every run of Unicode letters or digits. */
export function words(text: string): string[] {
  return text.toLowerCase().split(NON_WORD).filter(Boolean);
}

/** A name as the name search sees it: its words joined by one space. */
export function normaliseName(name: string): string {
  return words(name).join(' ');
}

/**
 * Every word-boundary suffix of the normalised names, once each: "acme shop ltd" -> ["acme shop ltd", "shop ltd", "ltd"].
 * The name search (a name, or its part from any word on, starts with q) is then one prefix range over them.
 */
export function nameSuffixes(...names: (string | null | undefined)[]): string[] {
  const suffixes = new Set<string>();
  for (const name of names) {
    const parts = name ? words(name) : [];
    for (let i = 0; i < parts.length; i++) suffixes.add(parts.slice(i).join(' '));
  }
  return [...suffixes];
}

/** "promo.example.com" -> "com.example.promo." (the trailing dot keeps "example.com" from matching "example.community"). */
export function reverseHost(host: string): string {
  return `${host.toLowerCase().split('.').reverse().join('.')}.`;
}

/** Days since 1970-01-01 of an ISO date. */
export function dayNumber(isoDate: string): number {
  return Math.floor(Date.parse(`${isoDate}T00:00:00Z`) / 86_400_000);
}

export function isoDate(day: number): string {
  return new Date(day * 86_400_000).toISOString().slice(0, 10);
}

export function addDays(date: string, days: number): string {
  return isoDate(dayNumber(date) + days);
}
