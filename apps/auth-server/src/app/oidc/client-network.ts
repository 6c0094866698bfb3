import ipaddr from 'ipaddr.js';

/**
 * Bits of an IPv6 address that name one customer: providers delegate a /56 to a home or small office (a /48 to a
 * site), and every address inside it is free for the customer to use. A /64 would let one line rotate through
 * 2^8 buckets; a /48 would put up to 256 unrelated customers of some providers into one.
 */
export const IPV6_NETWORK_BITS = 56;
/** IPv4: one /24, the smallest block commonly routed or rented as a unit. */
export const IPV4_NETWORK_BITS = 24;

/**
 * The network a client address belongs to, for limits that one party must not escape by changing addresses:
 * `203.0.113.0/24`, `2001:db8:aa:bb00::/56`. IPv4-mapped IPv6 addresses count as IPv4. Anything that is not an
 * address (it cannot come from a socket, but the limits must not fail) is its own network.
 */
export function networkOf(address: string): string {
  return prefixOf(address, IPV4_NETWORK_BITS, IPV6_NETWORK_BITS);
}

/**
 * The one machine an address stands for, for limits on failures (a stranger's failures must not block others):
 * the IPv4 address itself, or the IPv6 /64 (one host or LAN; addresses inside it rotate freely).
 */
export function hostOf(address: string): string {
  return prefixOf(address, 32, 64);
}

function prefixOf(address: string, ipv4Bits: number, ipv6Bits: number): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  const bits = parsed.kind() === 'ipv4' ? ipv4Bits : ipv6Bits;
  const bytes = parsed.toByteArray().map((byte, i) => {
    const keep = Math.min(8, Math.max(0, bits - i * 8));
    return byte & (0xff << (8 - keep)) & 0xff;
  });
  return `${ipaddr.fromByteArray(bytes).toString()}/${bits}`;
}
