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

/** Every word-boundary suffix of a normalised name: "acme shop ltd" -> ["acme shop ltd", "shop ltd", "ltd"]. */
export function nameSuffixes(name: string): string[] {
  const parts = words(name);
  return parts.map((_, i) => parts.slice(i).join(' '));
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
