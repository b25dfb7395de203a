import { describe, expect, it } from "vitest";
import { checkFetchUrl, hostMatchesAllowlist, isAutoApproved } from "../../../lib/tools/web/url_rules.ts";

const error = (raw: string): string => {
  const result = checkFetchUrl(raw);
  if (result.ok) throw new Error(`unexpectedly valid: ${raw}`);
  return result.error;
};

describe("checkFetchUrl", () => {
  it("accepts http and https URLs after trimming", () => {
    const result = checkFetchUrl("  https://docs.rs/serde  ");
    expect(result.ok && result.text).toBe("https://docs.rs/serde");
    expect(result.ok && result.url.hostname).toBe("docs.rs");
  });

  it("refuses URLs over 4096 bytes", () => {
    expect(error(`https://a.example/${"x".repeat(4096)}`)).toBe("url exceeds 4096 bytes");
    expect(checkFetchUrl(`https://a.example/${"x".repeat(4096 - 18)}`).ok).toBe(true);
  });

  it("reports parse failures with the invalid url prefix", () => {
    expect(error("not a url")).toMatch(/^invalid url: /);
    expect(error("")).toMatch(/^invalid url: /);
  });

  it("refuses other schemes by name", () => {
    expect(error("ftp://example.com/file")).toBe("web_fetch supports only http and https URLs, not ftp");
    expect(error("file:///etc/passwd")).toBe("web_fetch supports only http and https URLs, not file");
    expect(error("javascript:alert(1)")).toBe("web_fetch supports only http and https URLs, not javascript");
  });

  it("refuses embedded credentials", () => {
    expect(error("https://user:pass@example.com/")).toBe("urls with embedded credentials are not allowed");
    expect(error("https://user@example.com/")).toBe("urls with embedded credentials are not allowed");
  });
});

describe("allowlist", () => {
  const entries = ["docs.rs", "*.example.org", "Crates.IO."];

  it("matches exact entries case-insensitively, ignoring a trailing dot", () => {
    expect(hostMatchesAllowlist("docs.rs", entries)).toBe(true);
    expect(hostMatchesAllowlist("DOCS.RS.", entries)).toBe(true);
    expect(hostMatchesAllowlist("crates.io", entries)).toBe(true);
    expect(hostMatchesAllowlist("sub.docs.rs", entries)).toBe(false);
    expect(hostMatchesAllowlist("evildocs.rs", entries)).toBe(false);
  });

  it("matches *. entries at any subdomain depth but never the bare domain", () => {
    expect(hostMatchesAllowlist("a.example.org", entries)).toBe(true);
    expect(hostMatchesAllowlist("a.b.c.example.org", entries)).toBe(true);
    expect(hostMatchesAllowlist("example.org", entries)).toBe(false);
    expect(hostMatchesAllowlist("badexample.org", entries)).toBe(false);
    expect(hostMatchesAllowlist("example.org.evil.com", entries)).toBe(false);
  });

  it("auto-approves only https URLs on allowlisted hosts", () => {
    expect(isAutoApproved(new URL("https://docs.rs/x"), entries)).toBe(true);
    expect(isAutoApproved(new URL("http://docs.rs/x"), entries)).toBe(false);
    expect(isAutoApproved(new URL("https://other.rs/x"), entries)).toBe(false);
    expect(isAutoApproved(new URL("https://docs.rs/x"), [])).toBe(false);
  });
});
