import { describe, expect, it } from "vitest";
import { bypassesProxy, chooseProxy } from "../../../lib/tools/web/proxy.ts";

const chosen = (url: string, env: Record<string, string>, settings = {}) => {
  const choice = chooseProxy(new URL(url), settings, env);
  if (!choice.ok) return `error: ${choice.error}`;
  return choice.proxy?.href;
};

describe("chooseProxy", () => {
  it("uses HTTPS_PROXY for https, HTTP_PROXY for http, and HTTP_PROXY for https when HTTPS_PROXY is unset", () => {
    const env = { HTTP_PROXY: "http://plain.proxy:3128", HTTPS_PROXY: "http://secure.proxy:3129" };
    expect(chosen("https://a.test/", env)).toBe("http://secure.proxy:3129/");
    expect(chosen("http://a.test/", env)).toBe("http://plain.proxy:3128/");
    expect(chosen("https://a.test/", { HTTP_PROXY: "http://plain.proxy:3128" })).toBe("http://plain.proxy:3128/");
    expect(chosen("http://a.test/", { HTTPS_PROXY: "http://secure.proxy:3129" })).toBeUndefined();
  });

  it("prefers the lowercase variables, and explicit settings over both", () => {
    const env = { http_proxy: "http://lower:1", HTTP_PROXY: "http://upper:2" };
    expect(chosen("http://a.test/", env)).toBe("http://lower:1/");
    expect(chosen("http://a.test/", env, { httpProxy: "http://setting:3" })).toBe("http://setting:3/");
    expect(chosen("http://a.test/", env, { httpProxy: "" })).toBeUndefined();
  });

  it("reads host:port without a scheme as an http proxy", () => {
    expect(chosen("http://a.test/", { HTTP_PROXY: "proxy.corp:3128" })).toBe("http://proxy.corp:3128/");
  });

  it("refuses proxies it cannot tunnel through, without echoing the value", () => {
    expect(chosen("https://a.test/", { HTTPS_PROXY: "socks5://user:hunter2@proxy:1080" })).toBe(
      "error: the proxy in HTTPS_PROXY uses socks5; web_fetch supports http and https proxies",
    );
    expect(chosen("http://a.test/", { http_proxy: "http://[broken" })).toBe(
      "error: the proxy in http_proxy is not a valid URL",
    );
  });

  it("goes direct for NO_PROXY hosts", () => {
    const env = { HTTP_PROXY: "http://p:1", NO_PROXY: "internal.test" };
    expect(chosen("http://internal.test/", env)).toBeUndefined();
    expect(chosen("http://other.test/", env)).toBe("http://p:1/");
  });
});

describe("bypassesProxy", () => {
  const bypass = (url: string, noProxy: string) => bypassesProxy(new URL(url), noProxy);

  it("matches exact entries, suffix entries, ports, IPv6 and the wildcard", () => {
    expect(bypass("http://a.test/", "")).toBe(false);
    expect(bypass("http://a.test/", "*")).toBe(true);
    expect(bypass("http://A.Test/", "a.test")).toBe(true);
    expect(bypass("http://sub.a.test/", "a.test")).toBe(false);
    expect(bypass("http://sub.a.test/", ".a.test")).toBe(true);
    expect(bypass("http://deep.sub.a.test/", "*.a.test")).toBe(true);
    expect(bypass("http://a.test:8080/", "a.test:8080")).toBe(true);
    expect(bypass("http://a.test:8081/", "a.test:8080")).toBe(false);
    expect(bypass("https://a.test/", "a.test:443")).toBe(true);
    expect(bypass("http://[::1]:80/", "[::1]")).toBe(true);
    expect(bypass("http://b.test/", "x.test, b.test y.test")).toBe(true);
  });
});
