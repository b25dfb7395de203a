// The pure SSRF guard of spec §10: which IP addresses web_fetch may connect to, and the exact
// refusal texts. No I/O here; resolution and pinning live in resolve.ts.

import ipaddr from "ipaddr.js";

type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

const cidr = (text: string): Cidr => ipaddr.parseCIDR(text);

const REFUSED_V4: Cidr[] = [
  "0.0.0.0/8",
  "127.0.0.0/8",
  "10.0.0.0/8",
  "172.16.0.0/12",
  "192.168.0.0/16",
  "169.254.0.0/16",
  "100.64.0.0/10",
  "192.0.0.0/24",
  "192.0.2.0/24",
  "198.51.100.0/24",
  "203.0.113.0/24",
  "198.18.0.0/15",
  "224.0.0.0/4",
  "240.0.0.0/4",
].map(cidr);

const REFUSED_V6: Cidr[] = [
  "::/128",
  "::1/128",
  "ff00::/8",
  "fc00::/7",
  "fe80::/10",
  "fec0::/10",
  "2001:db8::/32",
  "2001::/32",
].map(cidr);

const NAT64 = cidr("64:ff9b::/96");
const SIX_TO_FOUR = cidr("2002::/16");

/**
 * True when `ip` (an IPv4 or IPv6 literal, IPv6 without brackets, an optional zone allowed) is
 * a public address. Anything that does not parse as an IP address is not public.
 */
export function isPublicAddress(ip: string): boolean {
  let address: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    address = ipaddr.parse(ip);
  } catch {
    return false;
  }
  if (address.kind() === "ipv4") return isPublicV4(address as ipaddr.IPv4);
  const v6 = address as ipaddr.IPv6;
  const embedded = embeddedIPv4(v6);
  if (embedded !== undefined) return isPublicV4(embedded);
  return !REFUSED_V6.some((range) => v6.match(range));
}

function isPublicV4(address: ipaddr.IPv4): boolean {
  return !REFUSED_V4.some((range) => address.match(range));
}

/** The IPv4 address an IPv6 address stands for: mapped, compatible, NAT64 and 6to4 forms. */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  const p = address.parts;
  const fromParts = (high: number, low: number): ipaddr.IPv4 =>
    new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff]);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible, first 96 bits zero; covers :: and ::1).
  if (p[0] === 0 && p[1] === 0 && p[2] === 0 && p[3] === 0 && p[4] === 0 && (p[5] === 0xffff || p[5] === 0)) {
    return fromParts(p[6]!, p[7]!);
  }
  if (address.match(NAT64)) return fromParts(p[6]!, p[7]!);
  // 2002:AABB:CCDD::/48 carries a.b.c.d in bits 16–47.
  if (address.match(SIX_TO_FOUR)) return fromParts(p[1]!, p[2]!);
  return undefined;
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
