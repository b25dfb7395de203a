import ipaddr from "ipaddr.js";
import { describe, expect, it } from "vitest";
import {
  isIpLiteral,
  isPublicAddress,
  literalRefusal,
  noAddressMessage,
  REFUSED_IPV4,
  REFUSED_IPV6,
  resolvedRefusal,
  TRANSLATION_IPV6,
} from "../../../lib/tools/web/ssrf.ts";

// Spec §10 test vectors, verbatim.
const REFUSED = [
  "127.0.0.1",
  "10.1.2.3",
  "172.16.0.1",
  "192.168.1.1",
  "169.254.169.254",
  "100.64.0.1",
  "0.0.0.0",
  "224.0.0.1",
  "255.255.255.255",
  "::1",
  "::",
  "fc00::1",
  "fd12::1",
  "fe80::1",
  "::ffff:127.0.0.1",
  "::ffff:10.0.0.1",
  "64:ff9b::a00:1",
  "2002:7f00:1::",
  "2001:db8::1",
];
const ALLOWED = ["1.1.1.1", "140.82.112.3", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"];

/**
 * Every special-purpose range of the IANA IPv4 and IPv6 registries (and multicast, site-local),
 * written out here independently of the guard's own table: addresses inside (refused) and, where
 * the neighbour is not itself special, public addresses just outside (allowed).
 */
type Row = { prefix: string; inside: string[]; outside?: string[] };

const IPV4_ROWS: Row[] = [
  { prefix: "0.0.0.0/8", inside: ["0.0.0.1", "0.255.255.255"], outside: ["1.0.0.0"] },
  { prefix: "0.0.0.0/32", inside: ["0.0.0.0"] },
  { prefix: "10.0.0.0/8", inside: ["10.0.0.0", "10.255.255.255"], outside: ["9.255.255.255", "11.0.0.0"] },
  { prefix: "100.64.0.0/10", inside: ["100.64.0.0", "100.127.255.255"], outside: ["100.63.255.255", "100.128.0.0"] },
  { prefix: "127.0.0.0/8", inside: ["127.0.0.1", "127.255.255.254"], outside: ["126.255.255.255", "128.0.0.0"] },
  { prefix: "169.254.0.0/16", inside: ["169.254.169.254"], outside: ["169.253.255.255", "169.255.0.0"] },
  { prefix: "172.16.0.0/12", inside: ["172.16.0.0", "172.31.255.255"], outside: ["172.15.255.255", "172.32.0.0"] },
  { prefix: "192.0.0.0/24", inside: ["192.0.0.255", "192.0.0.100"], outside: ["191.255.255.255", "192.0.1.0"] },
  { prefix: "192.0.0.0/29", inside: ["192.0.0.1", "192.0.0.7"] },
  { prefix: "192.0.0.8/32", inside: ["192.0.0.8"] },
  { prefix: "192.0.0.9/32", inside: ["192.0.0.9"] },
  { prefix: "192.0.0.10/32", inside: ["192.0.0.10"] },
  { prefix: "192.0.0.170/32", inside: ["192.0.0.170"] },
  { prefix: "192.0.0.171/32", inside: ["192.0.0.171"] },
  { prefix: "192.0.2.0/24", inside: ["192.0.2.1"], outside: ["192.0.1.255", "192.0.3.0"] },
  { prefix: "192.31.196.0/24", inside: ["192.31.196.1"], outside: ["192.31.195.255", "192.31.197.0"] },
  { prefix: "192.52.193.0/24", inside: ["192.52.193.1"], outside: ["192.52.192.255", "192.52.194.0"] },
  { prefix: "192.88.99.0/24", inside: ["192.88.99.1", "192.88.99.255"], outside: ["192.88.98.255", "192.88.100.0"] },
  { prefix: "192.88.99.2/32", inside: ["192.88.99.2"] },
  { prefix: "192.168.0.0/16", inside: ["192.168.0.1", "192.168.255.255"], outside: ["192.167.255.255", "192.169.0.0"] },
  { prefix: "192.175.48.0/24", inside: ["192.175.48.1"], outside: ["192.175.47.255", "192.175.49.0"] },
  { prefix: "198.18.0.0/15", inside: ["198.18.0.0", "198.19.255.255"], outside: ["198.17.255.255", "198.20.0.0"] },
  { prefix: "198.51.100.0/24", inside: ["198.51.100.255"], outside: ["198.51.99.255", "198.51.101.0"] },
  { prefix: "203.0.113.0/24", inside: ["203.0.113.0"], outside: ["203.0.112.255", "203.0.114.0"] },
  { prefix: "224.0.0.0/4", inside: ["224.0.0.1", "239.255.255.255"], outside: ["223.255.255.255"] },
  { prefix: "240.0.0.0/4", inside: ["240.0.0.1", "255.255.255.254"] },
  { prefix: "255.255.255.255/32", inside: ["255.255.255.255"] },
];

const IPV6_ROWS: Row[] = [
  { prefix: "::/128", inside: ["::", "0:0:0:0:0:0:0:0"] },
  { prefix: "::1/128", inside: ["::1"] },
  // Local-use NAT64 is refused even when the IPv4 address it carries is public.
  { prefix: "64:ff9b:1::/48", inside: ["64:ff9b:1::808:808", "64:ff9b:1:ffff::1"], outside: ["64:ff9b::808:808"] },
  { prefix: "100::/64", inside: ["100::1", "100::ffff:ffff:ffff:ffff"] },
  { prefix: "100:0:0:1::/64", inside: ["100:0:0:1::1"] },
  { prefix: "2001::/23", inside: ["2001:1ff:ffff::1", "2001:100::1"], outside: ["2001:200::1", "2000:ffff:ffff::1"] },
  // Teredo with a public server (65.54.227.120) and a public client: refused as a whole.
  { prefix: "2001::/32", inside: ["2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1"] },
  { prefix: "2001:1::1/128", inside: ["2001:1::1"] },
  { prefix: "2001:1::2/128", inside: ["2001:1::2"] },
  { prefix: "2001:1::3/128", inside: ["2001:1::3"] },
  { prefix: "2001:2::/48", inside: ["2001:2:0:ffff::1"] },
  { prefix: "2001:3::/32", inside: ["2001:3:1::1"] },
  { prefix: "2001:4:112::/48", inside: ["2001:4:112::1"] },
  { prefix: "2001:10::/28", inside: ["2001:1f::1"] },
  { prefix: "2001:20::/28", inside: ["2001:20::1"] },
  { prefix: "2001:30::/28", inside: ["2001:3f::1"] },
  {
    prefix: "2001:db8::/32",
    inside: ["2001:db8::1", "2001:db8:ffff::1"],
    outside: ["2001:db7:ffff::1", "2001:db9::1"],
  },
  { prefix: "2620:4f:8000::/48", inside: ["2620:4f:8000::1"], outside: ["2620:4f:7fff:ffff::1", "2620:4f:8001::1"] },
  { prefix: "3fff::/20", inside: ["3fff::1", "3fff:fff:ffff::1"], outside: ["3ffe:ffff::1", "3fff:1000::1"] },
  { prefix: "5f00::/16", inside: ["5f00::1", "5f00:ffff::1"] },
  { prefix: "fc00::/7", inside: ["fc00::1", "fd12::1", "fdff:ffff::1"] },
  { prefix: "fe80::/10", inside: ["fe80::1", "febf::1", "fe80::1%eth0"] },
  { prefix: "fec0::/10", inside: ["fec0::1", "feff::1"] },
  { prefix: "ff00::/8", inside: ["ff02::1", "ff00::", "ff05::1:3"] },
];

/** Translation forms: refused when the IPv4 address they carry is non-public, allowed when it is public. */
type TranslationRow = { prefix: string; private: string[]; public: string[] };

const TRANSLATION_ROWS: TranslationRow[] = [
  {
    prefix: "::ffff:0:0/96",
    private: ["::ffff:127.0.0.1", "::ffff:7f00:1", "::ffff:a9fe:a9fe", "::ffff:192.88.99.1", "::ffff:100.64.0.1"],
    public: ["::ffff:8.8.8.8", "::ffff:101:101"],
  },
  {
    prefix: "::ffff:0:0:0/96",
    private: ["::ffff:0:127.0.0.1", "::ffff:0:10.0.0.1", "::ffff:0:169.254.169.254", "::ffff:0:7f00:1"],
    public: ["::ffff:0:8.8.8.8"],
  },
  // Hexadecimal: ipaddr.js reads the dotted `::a.b.c.d` as IPv4-mapped (the verdict is the same).
  { prefix: "::/96", private: ["::7f00:1", "::a00:1", "::2", "::a9fe:a9fe"], public: ["::808:808", "::101:101"] },
  {
    prefix: "64:ff9b::/96",
    private: ["64:ff9b::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::192.0.0.9", "64:ff9b::192.88.99.1"],
    public: ["64:ff9b::1.1.1.1", "64:ff9b::808:808"],
  },
  {
    prefix: "2002::/16",
    private: ["2002:7f00:1::", "2002:a9fe:a9fe::1", "2002:0a00:0001:1234::1", "2002:c058:6301::1", "2002:c01f:c401::"],
    public: ["2002:0808:0808::", "2002:101:101:1::1"],
  },
];

const inRange = (ip: string, prefix: string): boolean => {
  const address = ipaddr.parse(ip);
  const range = ipaddr.parseCIDR(prefix);
  return address.kind() === range[0].kind() && address.match(range);
};

describe("isPublicAddress", () => {
  it.each(REFUSED)("refuses the spec vector %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(ALLOWED)("allows the spec vector %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  describe.each([...IPV4_ROWS, ...IPV6_ROWS])("the special-purpose range $prefix", (row) => {
    it.each(row.inside)("refuses %s inside it", (ip) => {
      expect(inRange(ip.replace(/%.*$/, ""), row.prefix)).toBe(true);
      expect(isPublicAddress(ip)).toBe(false);
    });
    it.each(row.outside ?? [])("allows the public neighbour %s", (ip) => {
      expect(inRange(ip, row.prefix)).toBe(false);
      expect(isPublicAddress(ip)).toBe(true);
    });
  });

  describe.each(TRANSLATION_ROWS)("the translation form $prefix", (row) => {
    it.each(row.private)("refuses %s, which carries a non-public IPv4 address", (ip) => {
      expect(inRange(ip, row.prefix)).toBe(true);
      expect(isPublicAddress(ip)).toBe(false);
    });
    it.each(row.public)("allows %s, which carries a public IPv4 address", (ip) => {
      expect(inRange(ip, row.prefix)).toBe(true);
      expect(isPublicAddress(ip)).toBe(true);
    });
  });

  it("tests every range of the guard's tables, and the guard has every range tested here", () => {
    const tested = [...IPV4_ROWS, ...IPV6_ROWS].map((row) => row.prefix).sort();
    const guarded = [...REFUSED_IPV4, ...REFUSED_IPV6].map((entry) => entry.prefix).sort();
    expect(guarded).toEqual(tested);
    expect(TRANSLATION_IPV6.map((entry) => entry.prefix).sort()).toEqual(
      TRANSLATION_ROWS.map((row) => row.prefix).sort(),
    );
  });

  it.each(["1::", "4000::1", "8000::1", "e000::1", "::1:0:0:0:1", "::2:0:0:1"])(
    "refuses %s, outside global unicast 2000::/3",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(false);
    },
  );

  it.each(["2a00:1450:4001::200e", "2606:4700::1111", "2001:4860:4860::8888", "3ffe::1"])(
    "allows the public IPv6 address %s",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );

  it("judges an ISATAP interface identifier by its IPv4 tunnel end point", () => {
    expect(isPublicAddress("2a00:1450:4001::5efe:10.0.0.1")).toBe(false);
    expect(isPublicAddress("2a00:1450:4001::200:5efe:192.168.1.1")).toBe(false);
    expect(isPublicAddress("2a00:1450:4001::5efe:8.8.8.8")).toBe(true);
  });

  it("refuses anything that is not an IP address", () => {
    expect(isPublicAddress("example.com")).toBe(false);
    expect(isPublicAddress("")).toBe(false);
    expect(isPublicAddress("[::1]")).toBe(false);
  });

  it("recognises IP literals with and without brackets", () => {
    expect(isIpLiteral("127.0.0.1")).toBe(true);
    expect(isIpLiteral("[::1]")).toBe(true);
    expect(isIpLiteral("::ffff:127.0.0.1")).toBe(true);
    expect(isIpLiteral("localhost")).toBe(false);
    expect(isIpLiteral("1.example")).toBe(false);
  });

  it("words the refusals exactly", () => {
    expect(literalRefusal("127.0.0.1")).toBe("127.0.0.1 is a loopback, private, or otherwise non-public address");
    expect(resolvedRefusal("localhost", "127.0.0.1")).toBe(
      "localhost resolves to 127.0.0.1, a loopback, private, or otherwise non-public address",
    );
    expect(noAddressMessage("nowhere.test")).toBe("nowhere.test did not resolve to any address");
  });
});
