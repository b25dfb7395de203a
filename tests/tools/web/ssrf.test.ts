import { describe, expect, it } from "vitest";
import { isIpLiteral, isPublicAddress, literalRefusal, noAddressMessage, resolvedRefusal } from "../../../lib/tools/web/ssrf.ts";

// Spec §10 test vectors, verbatim.
const REFUSED = [
  "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1",
  "255.255.255.255", "::1", "::", "fc00::1", "fd12::1", "fe80::1", "::ffff:127.0.0.1", "::ffff:10.0.0.1",
  "64:ff9b::a00:1", "2002:7f00:1::", "2001:db8::1",
];
const ALLOWED = ["1.1.1.1", "140.82.112.3", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"];

describe("isPublicAddress", () => {
  it.each(REFUSED)("refuses the spec vector %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(ALLOWED)("allows the spec vector %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it.each([
    ["0/8", "0.1.2.3"], ["127/8", "127.255.255.254"], ["10/8", "10.255.0.1"], ["172.16/12 upper edge", "172.31.255.255"],
    ["192.168/16", "192.168.255.1"], ["169.254/16", "169.254.0.1"], ["100.64/10 upper edge", "100.127.255.255"],
    ["192.0.0/24", "192.0.0.8"], ["192.0.2/24", "192.0.2.55"], ["198.51.100/24", "198.51.100.7"],
    ["203.0.113/24", "203.0.113.9"], ["198.18/15", "198.19.255.1"], ["224/4", "239.255.255.255"], ["240/4", "240.0.0.1"],
  ])("refuses every IPv4 range: %s (%s)", (_range, ip) => {
    expect(isPublicAddress(ip)).toBe(false);
  });

  it.each(["172.15.255.255", "172.32.0.0", "100.63.255.255", "100.128.0.0", "192.0.1.1", "198.17.255.255", "198.20.0.0", "223.255.255.255", "11.0.0.1", "169.253.0.1"])(
    "allows the public neighbour %s of a refused range",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(true);
    },
  );

  it.each(["ff02::1", "ff00::", "fdff:ffff::1", "febf::1", "fec0::1", "feff::1", "2001:db8:ffff::1", "2001:0:4136:e378::1"])(
    "refuses the IPv6 range member %s",
    (ip) => {
      expect(isPublicAddress(ip)).toBe(false);
    },
  );

  it.each(["2001:db9::1", "2001:1::1", "fe00::1", "2a00:1450:4001::200e"])("allows the public IPv6 address %s", (ip) => {
    expect(isPublicAddress(ip)).toBe(true);
  });

  it("judges embedded IPv4 forms by the IPv4 address", () => {
    // IPv4-compatible (first 96 bits zero).
    expect(isPublicAddress("::127.0.0.1")).toBe(false);
    expect(isPublicAddress("::8.8.8.8")).toBe(true);
    // IPv4-mapped, hexadecimal spelling.
    expect(isPublicAddress("::ffff:7f00:1")).toBe(false);
    expect(isPublicAddress("::ffff:a9fe:a9fe")).toBe(false);
    expect(isPublicAddress("::ffff:101:101")).toBe(true);
    // NAT64.
    expect(isPublicAddress("64:ff9b::127.0.0.1")).toBe(false);
    expect(isPublicAddress("64:ff9b::a9fe:a9fe")).toBe(false);
    expect(isPublicAddress("64:ff9b::1.1.1.1")).toBe(true);
    // 6to4: bits 16–47.
    expect(isPublicAddress("2002:a9fe:a9fe::1")).toBe(false);
    expect(isPublicAddress("2002:0a00:0001:1234::1")).toBe(false);
    expect(isPublicAddress("2002:0808:0808::")).toBe(true);
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
