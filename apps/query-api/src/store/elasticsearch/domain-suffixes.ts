/**
 * Every parent of a landing host, the host included: `a.shop.example.co.uk` -> [a.shop.example.co.uk,
 * shop.example.co.uk, example.co.uk, co.uk, uk]. Indexed as a keyword array, so the port's subdomain
 * rule ("landing_domain equals it or ends with `.` + it") is one exact `term` query: example.co.uk
 * finds every *.example.co.uk and never the look-alike badexample.co.uk.
 *
 * The list goes past the registrable domain on purpose, so the rule holds for any host the service
 * passes, exactly as in the SQLite engine's reversed-domain range scan; it costs one or two terms per ad.
 */
export function landingDomainSuffixes(host: string): string[] {
  const labels = normaliseHost(host).split('.').filter(Boolean);
  return labels.map((_, start) => labels.slice(start).join('.'));
}

export function normaliseHost(host: string): string {
  return host.trim().toLowerCase().replace(/\.$/, '');
}
