// The pure SSRF guard of spec §10: which IP addresses web_fetch may connect to, and the exact
// refusal texts. No I/O here; resolution and pinning live in resolve.ts.
//
// The tables follow the IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and its
// updates) in full, plus multicast and deprecated site-local space. Every entry is refused,
// including the few the registries mark "globally reachable": their anycast services (PCP,
// TURN, AS112, AMT, 6to4 relays) are answered by whichever server is nearest, often one inside
// the local network, and none of them serves web pages. The translation forms (IPv4-mapped,
// IPv4-translated, IPv4-compatible, NAT64 64:ff9b::/96, 6to4) are judged by the IPv4 address they
// carry instead.

import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** One registry entry: the prefix, its registry name and the RFC that defines it. */
export type SpecialRange = { prefix: string; name: string; rfc: string };

/** A prefix whose addresses stand for an IPv4 address; the verdict is that address's. */
export type TranslationRange = SpecialRange & { embedded: (parts: number[]) => ipaddr.IPv4 };

export const REFUSED_IPV4: readonly SpecialRange[] = [
  { prefix: "0.0.0.0/8", name: "This network", rfc: "RFC 791" },
  { prefix: "0.0.0.0/32", name: "This host on this network", rfc: "RFC 1122" },
  { prefix: "10.0.0.0/8", name: "Private-Use", rfc: "RFC 1918" },
  { prefix: "100.64.0.0/10", name: "Shared Address Space", rfc: "RFC 6598" },
  { prefix: "127.0.0.0/8", name: "Loopback", rfc: "RFC 1122" },
  { prefix: "169.254.0.0/16", name: "Link Local", rfc: "RFC 3927" },
  { prefix: "172.16.0.0/12", name: "Private-Use", rfc: "RFC 1918" },
  { prefix: "192.0.0.0/24", name: "IETF Protocol Assignments", rfc: "RFC 6890" },
  { prefix: "192.0.0.0/29", name: "IPv4 Service Continuity Prefix", rfc: "RFC 7335" },
  { prefix: "192.0.0.8/32", name: "IPv4 dummy address", rfc: "RFC 7600" },
  { prefix: "192.0.0.9/32", name: "Port Control Protocol Anycast", rfc: "RFC 7723" },
  { prefix: "192.0.0.10/32", name: "Traversal Using Relays around NAT Anycast", rfc: "RFC 8155" },
  { prefix: "192.0.0.170/32", name: "NAT64/DNS64 Discovery", rfc: "RFC 8880" },
  { prefix: "192.0.0.171/32", name: "NAT64/DNS64 Discovery", rfc: "RFC 8880" },
  { prefix: "192.0.2.0/24", name: "Documentation (TEST-NET-1)", rfc: "RFC 5737" },
  { prefix: "192.31.196.0/24", name: "AS112-v4", rfc: "RFC 7535" },
  { prefix: "192.52.193.0/24", name: "AMT", rfc: "RFC 7450" },
  { prefix: "192.88.99.0/24", name: "Deprecated (6to4 Relay Anycast)", rfc: "RFC 7526" },
  { prefix: "192.88.99.2/32", name: "6a44-relay anycast address", rfc: "RFC 6751" },
  { prefix: "192.168.0.0/16", name: "Private-Use", rfc: "RFC 1918" },
  { prefix: "192.175.48.0/24", name: "Direct Delegation AS112 Service", rfc: "RFC 7534" },
  { prefix: "198.18.0.0/15", name: "Benchmarking", rfc: "RFC 2544" },
  { prefix: "198.51.100.0/24", name: "Documentation (TEST-NET-2)", rfc: "RFC 5737" },
  { prefix: "203.0.113.0/24", name: "Documentation (TEST-NET-3)", rfc: "RFC 5737" },
  { prefix: "224.0.0.0/4", name: "Multicast", rfc: "RFC 5771" },
  { prefix: "240.0.0.0/4", name: "Reserved", rfc: "RFC 1112" },
  { prefix: "255.255.255.255/32", name: "Limited Broadcast", rfc: "RFC 919" },
];

export const REFUSED_IPV6: readonly SpecialRange[] = [
  { prefix: "::/128", name: "Unspecified Address", rfc: "RFC 4291" },
  { prefix: "::1/128", name: "Loopback Address", rfc: "RFC 4291" },
  { prefix: "64:ff9b:1::/48", name: "IPv4-IPv6 Translat. (local use)", rfc: "RFC 8215" },
  { prefix: "100::/64", name: "Discard-Only Address Block", rfc: "RFC 6666" },
  { prefix: "100:0:0:1::/64", name: "Dummy IPv6 Prefix", rfc: "RFC 9780" },
  { prefix: "2001::/23", name: "IETF Protocol Assignments", rfc: "RFC 2928" },
  { prefix: "2001::/32", name: "TEREDO", rfc: "RFC 4380" },
  { prefix: "2001:1::1/128", name: "Port Control Protocol Anycast", rfc: "RFC 7723" },
  { prefix: "2001:1::2/128", name: "Traversal Using Relays around NAT Anycast", rfc: "RFC 8155" },
  { prefix: "2001:1::3/128", name: "DNS-SD Service Registration Protocol Anycast", rfc: "RFC 9665" },
  { prefix: "2001:2::/48", name: "Benchmarking", rfc: "RFC 5180" },
  { prefix: "2001:3::/32", name: "AMT", rfc: "RFC 7450" },
  { prefix: "2001:4:112::/48", name: "AS112-v6", rfc: "RFC 7535" },
  { prefix: "2001:10::/28", name: "Deprecated (previously ORCHID)", rfc: "RFC 4843" },
  { prefix: "2001:20::/28", name: "ORCHIDv2", rfc: "RFC 7343" },
  { prefix: "2001:30::/28", name: "Drone Remote ID Protocol Entity Tags (DETs) Prefix", rfc: "RFC 9374" },
  { prefix: "2001:db8::/32", name: "Documentation", rfc: "RFC 3849" },
  { prefix: "2620:4f:8000::/48", name: "Direct Delegation AS112 Service", rfc: "RFC 7534" },
  { prefix: "3fff::/20", name: "Documentation", rfc: "RFC 9637" },
  { prefix: "5f00::/16", name: "Segment Routing (SRv6) SIDs", rfc: "RFC 9602" },
  { prefix: "fc00::/7", name: "Unique-Local", rfc: "RFC 4193" },
  { prefix: "fe80::/10", name: "Link-Local Unicast", rfc: "RFC 4291" },
  { prefix: "fec0::/10", name: "Site-Local (deprecated)", rfc: "RFC 3879" },
  { prefix: "ff00::/8", name: "Multicast", rfc: "RFC 4291" },
];

const fromParts = (high: number, low: number): ipaddr.IPv4 =>
  new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
const low32 = (p: number[]): ipaddr.IPv4 => fromParts(p[6]!, p[7]!);

export const TRANSLATION_IPV6: readonly TranslationRange[] = [
  { prefix: "::ffff:0:0/96", name: "IPv4-mapped Address", rfc: "RFC 4291", embedded: low32 },
  { prefix: "::ffff:0:0:0/96", name: "IPv4-translated Address", rfc: "RFC 2765", embedded: low32 },
  // Deprecated, but still routed by some stacks; `::` and `::1` are refused above. (ipaddr.js reads the dotted
  // spelling `::a.b.c.d` as IPv4-mapped; either way the verdict is the IPv4 address's.)
  { prefix: "::/96", name: "IPv4-compatible Address", rfc: "RFC 4291", embedded: low32 },
  { prefix: "64:ff9b::/96", name: "IPv4-IPv6 Translat.", rfc: "RFC 6052", embedded: low32 },
  // 2002:AABB:CCDD::/48 carries a.b.c.d in bits 16–47.
  { prefix: "2002::/16", name: "6to4", rfc: "RFC 3056", embedded: (p) => fromParts(p[1]!, p[2]!) },
];

type Cidr = [Address, number];
const compile = <T extends SpecialRange>(entries: readonly T[]): Array<{ entry: T; cidr: Cidr }> =>
  entries.map((entry) => ({ entry, cidr: ipaddr.parseCIDR(entry.prefix) }));

const V4 = compile(REFUSED_IPV4);
const V6 = compile(REFUSED_IPV6);
const TRANSLATED = compile(TRANSLATION_IPV6);
/** Global unicast space (RFC 4291); nothing outside it is ever assigned to a public host. */
const GLOBAL_UNICAST = ipaddr.parseCIDR("2000::/3");

/**
 * True when `ip` (an IPv4 or IPv6 literal, IPv6 without brackets, an optional zone allowed) is
 * a public address. Anything that does not parse as an IP address is not public.
 */
export function isPublicAddress(ip: string): boolean {
  let address: Address;
  try {
    address = ipaddr.parse(ip);
  } catch {
    return false;
  }
  return address.kind() === "ipv4" ? isPublicV4(address as ipaddr.IPv4) : isPublicV6(address as ipaddr.IPv6);
}

function isPublicV4(address: ipaddr.IPv4): boolean {
  return !V4.some(({ cidr }) => address.match(cidr));
}

function isPublicV6(address: ipaddr.IPv6): boolean {
  if (V6.some(({ cidr }) => address.match(cidr))) return false;
  const translation = TRANSLATED.find(({ cidr }) => address.match(cidr));
  if (translation !== undefined) return isPublicV4(translation.entry.embedded(address.parts));
  if (!address.match(GLOBAL_UNICAST)) return false;
  const isatap = isatapIPv4(address.parts);
  return isatap === undefined || isPublicV4(isatap);
}

/**
 * The tunnel end point of an ISATAP interface identifier (`[0-3]00:5efe:a.b.c.d`, RFC 5214),
 * which a router inside the network behind the prefix forwards to over IPv4.
 */
function isatapIPv4(p: number[]): ipaddr.IPv4 | undefined {
  return (p[4]! & 0xfcff) === 0 && p[5] === 0x5efe ? low32(p) : undefined;
}

/** `ip` with IPv6 brackets removed (URL host names keep them). */
export function unbracket(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

/** True when `host` (brackets allowed) is an IP literal rather than a name. */
export function isIpLiteral(host: string): boolean {
  return ipaddr.IPv6.isValid(unbracket(host)) || ipaddr.IPv4.isValidFourPartDecimal(host);
}

export function literalRefusal(ip: string): string {
  return `${ip} is a loopback, private, or otherwise non-public address`;
}

export function resolvedRefusal(host: string, ip: string): string {
  return `${host} resolves to ${ip}, a loopback, private, or otherwise non-public address`;
}

export function noAddressMessage(host: string): string {
  return `${host} did not resolve to any address`;
}
