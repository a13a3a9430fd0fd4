import { isIP } from 'node:net';

/**
 * What kind of network an IP address is on, for the filter download (`POST /pipelines/add`): only `public` addresses
 * are fetched unless the admin allows the others (ADD_URL_ALLOW_PRIVATE). Pure: no connection, no DNS.
 * Sources: RFC 6890 (special-purpose registries), RFC 1918, RFC 6598, RFC 3927, RFC 4193, RFC 4291, RFC 6052,
 * RFC 3056, RFC 4380, RFC 5737, RFC 3849.
 */
export type AddressClass = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'multicast' | 'reserved';

/** IPv4 ranges that are not the public internet: [first octets as a 32-bit number, prefix length, class]. */
const V4_RANGES: Array<[string, number, Exclude<AddressClass, 'public'>]> = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT (RFC 6598)
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // cloud metadata services live here (169.254.169.254)
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // 255.255.255.255 included
];

function v4Number(address: string): number {
  return address.split('.').reduce((value, octet) => value * 256 + Number(octet), 0);
}

function classifyV4(address: string): AddressClass {
  const value = v4Number(address);
  for (const [base, prefix, kind] of V4_RANGES) {
    const size = 2 ** (32 - prefix);
    const start = v4Number(base);
    if (value >= start && value < start + size) return kind;
  }
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (an embedded dotted IPv4 tail included), or undefined. */
function v6Groups(address: string): number[] | undefined {
  let text = address.split('%')[0]!.toLowerCase();
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const value = v4Number(dotted[1]!);
    text = `${text.slice(0, -dotted[1]!.length)}${(value >>> 16).toString(16)}:${(value & 0xffff).toString(16)}`;
  }
  const [head, tail, extra] = text.split('::');
  if (extra !== undefined) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((group) => Number.parseInt(group, 16)) : []);
  const first = parse(head);
  const last = parse(tail);
  const groups =
    tail === undefined ? first : [...first, ...new Array<number>(8 - first.length - last.length).fill(0), ...last];
  if (groups.length !== 8 || groups.some((group) => !Number.isInteger(group) || group < 0 || group > 0xffff))
    return undefined;
  return groups;
}

const v4Of = (high: number, low: number) => `${high >>> 8}.${high & 0xff}.${low >>> 8}.${low & 0xff}`;

function classifyV6(address: string): AddressClass {
  const groups = v6Groups(address);
  if (!groups) return 'reserved';
  const [g0, g1, g2, g3, g4, g5, g6, g7] = groups as [number, number, number, number, number, number, number, number];
  const zeroTo = (end: number) => groups.slice(0, end).every((group) => group === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g7 === 1) return 'loopback';
  // An IPv4 address carried in IPv6 is judged as that IPv4 address.
  if (zeroTo(5) && g5 === 0xffff) return classifyV4(v4Of(g6, g7)); // mapped ::ffff:a.b.c.d
  if (zeroTo(6)) return classifyV4(v4Of(g6, g7)); // compatible ::a.b.c.d (deprecated)
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 0 && g3 === 0 && g4 === 0 && g5 === 0) return classifyV4(v4Of(g6, g7));
  if (g0 === 0x2002) return classifyV4(v4Of(g1, g2)); // 6to4
  if (g0 === 0x64 && g1 === 0xff9b && g2 === 1) return 'private'; // local-use NAT64
  if ((g0 & 0xfe00) === 0xfc00) return 'private'; // unique local fc00::/7
  if ((g0 & 0xffc0) === 0xfe80) return 'link-local';
  if ((g0 & 0xffc0) === 0xfec0) return 'private'; // site-local (deprecated)
  if ((g0 & 0xff00) === 0xff00) return 'multicast';
  if (g0 === 0x2001 && g1 === 0) return 'reserved'; // Teredo: the IPv4 behind it is not visible
  if (g0 === 0x2001 && g1 === 0xdb8) return 'reserved'; // documentation
  if (g0 === 0x100 && g1 === 0 && g2 === 0 && g3 === 0) return 'reserved'; // discard
  if (g0 === 0) return 'reserved'; // the rest of ::/16
  return 'public';
}

/** The class of an IP address literal (IPv4 or IPv6, brackets allowed); anything that is not one is `reserved`. */
export function classifyAddress(address: string): AddressClass {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare.split('%')[0]!);
  if (family === 4) return classifyV4(bare);
  if (family === 6) return classifyV6(bare);
  return 'reserved';
}
