// web_fetch through HTTP(S)_PROXY (issue 12 item 5): the tunnel goes to the address the guard
// checked (CONNECT <ip>:<port>), never to the name, which the proxy would resolve again. The
// proxy here is real (HTTP CONNECT on 127.0.0.1) and "resolves" names with the test's resolver;
// the guard is the real one, and the public addresses are never contacted: the proxy routes every
// tunnel to a server on 127.0.0.1.
import type { TLSSocket } from "node:tls";
import { afterEach, describe, expect, it } from "vitest";
import type { Resolver } from "../../../lib/tools/web/resolve.ts";
import { createWebFetchTool } from "../../../lib/tools/web/web_fetch.ts";
import {
  callTool,
  hasOpenssl,
  makeCertificate,
  prepareCall,
  runCall,
  startProxy,
  startTlsServer,
  targetHost,
  useServers,
  webConfig,
} from "./helpers.ts";
import type { ProxyRoute, TestProxy, TestServer } from "./helpers.ts";
import { waitFor } from "../../support/wait.ts";

const PUBLIC_V4 = "93.184.216.34";
const OTHER_PUBLIC_V4 = "93.184.216.35";
const PUBLIC_V6 = "2606:4700::1111";

const serve = useServers();
const proxies: TestProxy[] = [];
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.close()));
});
const proxyWith = async (route: (target: string) => ProxyRoute | Promise<ProxyRoute>): Promise<TestProxy> => {
  const proxy = await startProxy(route);
  proxies.push(proxy);
  return proxy;
};

/** A name that answers a public address to the first look-up and 127.0.0.1 to every later one. */
function rebinding(): Resolver & { calls: string[] } {
  const calls: string[] = [];
  const resolver = async (hostname: string) => {
    calls.push(hostname);
    return calls.length === 1
      ? [{ address: PUBLIC_V4, family: 4 as const }]
      : [{ address: "127.0.0.1", family: 4 as const }];
  };
  return Object.assign(resolver, { calls });
}

/** A public site and an internal one; the proxy picks by the address it is asked for, resolving names with `resolver`. */
async function sites(resolver: Resolver) {
  const site = await serve((request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end(`public page for ${request.headers.host}`);
  });
  const internal = await serve((_request, response) => {
    response.writeHead(200, { "content-type": "text/plain" });
    response.end("internal secret");
  });
  const routeAddress = (ip: string): ProxyRoute => (ip === "127.0.0.1" ? { port: internal.port } : { port: site.port });
  const proxy = await proxyWith(async (target) => {
    const host = targetHost(target);
    if (/^[\d.]+$/.test(host) || host.includes(":")) return routeAddress(host);
    const [first] = await resolver(host);
    return routeAddress(first!.address);
  });
  return { site, internal, proxy };
}

const config = webConfig();
const toolThrough = (proxy: TestProxy, resolver: Resolver, extra: { ca?: string; noProxy?: string } = {}) =>
  createWebFetchTool(config, {
    resolver,
    proxy: { httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: extra.noProxy ?? "" },
    ...(extra.ca !== undefined ? { unsafeCaForTests: extra.ca } : {}),
  });

describe("web_fetch through an HTTP proxy", () => {
  it("tunnels to the checked IP, so a rebinding name cannot reach an internal address", async () => {
    const resolver = rebinding();
    const { internal, proxy } = await sites(resolver);
    const outcome = await callTool(toolThrough(proxy, resolver), { url: "http://rebind.test:8080/page" }, config);
    expect(proxy.connects).toEqual([`${PUBLIC_V4}:8080`]);
    expect(internal.requests).toHaveLength(0);
    expect(outcome.output).not.toContain("internal secret");
    // The Host header keeps the name.
    expect(outcome.output.endsWith("public page for rebind.test:8080")).toBe(true);
    expect(outcome.success).toBe(true);
    expect(resolver.calls).toEqual(["rebind.test"]);
  });

  it("uses the default port in the CONNECT target and brackets IPv6 addresses", async () => {
    const resolver: Resolver = async () => [{ address: PUBLIC_V6, family: 6 }];
    const { proxy } = await sites(resolver);
    const outcome = await callTool(toolThrough(proxy, resolver), { url: "http://six.test/" }, config);
    expect(proxy.connects).toEqual([`[${PUBLIC_V6}]:80`]);
    expect(outcome.output.endsWith("public page for six.test")).toBe(true);
  });

  it("tunnels to an IP literal URL as given", async () => {
    const never: Resolver = async () => {
      throw new Error("an IP literal must not be resolved");
    };
    const { proxy } = await sites(never);
    const outcome = await callTool(toolThrough(proxy, never), { url: `http://[${PUBLIC_V6}]:81/x` }, config);
    expect(proxy.connects).toEqual([`[${PUBLIC_V6}]:81`]);
    expect(outcome.output.endsWith(`public page for [${PUBLIC_V6}]:81`)).toBe(true);
  });

  it("tries the next checked address when the proxy cannot reach one", async () => {
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }, { address: OTHER_PUBLIC_V4, family: 4 }];
    const site = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" }).end("second address");
    });
    const proxy = await proxyWith((target) =>
      target.startsWith(PUBLIC_V4) ? { status: 502, reason: "Bad Gateway" } : { port: site.port }
    );
    const outcome = await callTool(toolThrough(proxy, resolver), { url: "http://two.test/" }, config);
    expect(proxy.connects).toEqual([`${PUBLIC_V4}:80`, `${OTHER_PUBLIC_V4}:80`]);
    expect(outcome.output.endsWith("second address")).toBe(true);
  });

  it("reports a refused tunnel with the proxy's status, never its credentials", async () => {
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }];
    const proxy = await proxyWith(() => ({ status: 403, reason: "Forbidden" }));
    const tool = createWebFetchTool(config, {
      resolver,
      proxy: { httpProxy: `http://scv%20user:p%40ss-word@127.0.0.1:${proxy.port}`, httpsProxy: "", noProxy: "" },
    });
    const outcome = await callTool(tool, { url: "http://blocked.test/" }, config);
    expect(outcome).toMatchObject({
      success: false,
      output:
        `fetch http://blocked.test/: proxy 127.0.0.1:${proxy.port} refused CONNECT ${PUBLIC_V4}:80: HTTP 403 Forbidden`,
    });
    expect(outcome.output).not.toContain("p@ss");
    expect(proxy.authorizations).toEqual([`Basic ${Buffer.from("scv user:p@ss-word").toString("base64")}`]);
  });

  it("never sends a refused address to the proxy, on the first hop or after a redirect", async () => {
    const resolver: Resolver = async (name) =>
      name === "inside.test" ? [{ address: "10.0.0.7", family: 4 }] : [{ address: PUBLIC_V4, family: 4 }];
    const site = await serve((_request, response) => {
      response.writeHead(302, { location: "http://inside.test/admin" }).end();
    });
    const proxy = await proxyWith(() => ({ port: site.port }));
    const tool = toolThrough(proxy, resolver);
    const literal = await callTool(tool, { url: "http://169.254.169.254/latest/" }, config);
    expect(literal.output).toBe(
      "fetch http://169.254.169.254/latest/: 169.254.169.254 is a loopback, private, or otherwise non-public address",
    );
    const mapped = await callTool(tool, { url: "http://[::ffff:0:7f00:1]/" }, config);
    expect(mapped.output).toContain("non-public");
    expect(proxy.connects).toEqual([]);
    const redirected = await callTool(tool, { url: "http://outside.test/" }, config);
    expect(redirected.output).toBe(
      "fetch http://outside.test/: inside.test resolves to 10.0.0.7, a loopback, private, or otherwise non-public address",
    );
    expect(proxy.connects).toEqual([`${PUBLIC_V4}:80`]);
  });

  it("refuses bytes a proxy sends after its answer, before the origin could speak", async () => {
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }];
    const proxy = await proxyWith(() => ({ junk: true }));
    const outcome = await callTool(toolThrough(proxy, resolver), { url: "http://forged.test/" }, config);
    expect(outcome.success).toBe(false);
    expect(outcome.output).toBe(
      `fetch http://forged.test/: proxy 127.0.0.1:${proxy.port} sent data after its answer to CONNECT ${PUBLIC_V4}:80`,
    );
  });

  it("cancels a fetch whose proxy never answers", async () => {
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }];
    const proxy = await proxyWith(() => ({ hang: true }));
    const controller = new AbortController();
    const pending = runCall(
      prepareCall(toolThrough(proxy, resolver), { url: "http://slow.test/" }, config),
      config,
      controller.signal,
    );
    await waitFor(() => proxy.connects.length > 0, { intervalMs: 5, what: "the proxy to see the connection" });
    controller.abort();
    expect(await pending).toMatchObject({ success: false, output: "web fetch cancelled" });
  });

  it("times out when the proxy never answers", async () => {
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }];
    const proxy = await proxyWith(() => ({ hang: true }));
    const quick = webConfig({ fetch_timeout_seconds: 1 });
    const tool = createWebFetchTool(quick, { resolver, proxy: { httpProxy: proxy.url, httpsProxy: "", noProxy: "" } });
    const outcome = await callTool(tool, { url: "http://slow.test/" }, quick);
    expect(outcome.success).toBe(false);
    expect(outcome.output).toMatch(/^fetch http:\/\/slow\.test\/: (connection )?timed out after 1 seconds$/);
  });

  it("goes direct, still pinned, for NO_PROXY hosts", async () => {
    const site = await serve((request, response) => {
      response.writeHead(200, { "content-type": "text/plain" }).end(`direct to ${request.headers.host}`);
    });
    const proxy = await proxyWith(() => ({ port: site.port }));
    const tool = createWebFetchTool(config, {
      resolver: async () => [{ address: "127.0.0.1", family: 4 }],
      unsafeAddressPolicyForTests: (ip) => ip === "127.0.0.1",
      proxy: { httpProxy: proxy.url, httpsProxy: proxy.url, noProxy: "direct.test" },
    });
    const outcome = await callTool(tool, { url: `http://direct.test:${site.port}/` }, config);
    expect(proxy.connects).toEqual([]);
    expect(outcome.output.endsWith(`direct to direct.test:${site.port}`)).toBe(true);
  });
});

describe.skipIf(!hasOpenssl())("web_fetch through a proxy over TLS", () => {
  const tls = hasOpenssl() ? makeCertificate(["docs.test"]) : { key: "", cert: "" };

  async function tlsSite(): Promise<{ site: TestServer; names: Array<string | false | null> }> {
    const names: Array<string | false | null> = [];
    const site = await startTlsServer(tls, (request, response) => {
      names.push((request.socket as TLSSocket).servername);
      response.writeHead(200, { "content-type": "text/plain" });
      response.end(`secure page for ${request.headers.host}`);
    });
    servers.push(site);
    return { site, names };
  }
  const servers: TestServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  it("tunnels to the checked IP and keeps the name for SNI, the certificate and Host", async () => {
    const resolver = rebinding();
    const { site, names } = await tlsSite();
    const internal = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" }).end("internal secret");
    });
    const proxy = await proxyWith(async (target) => {
      const host = targetHost(target);
      const address = host === PUBLIC_V4 ? host : (await resolver(host))[0]!.address;
      return { port: address === "127.0.0.1" ? internal.port : site.port };
    });
    const outcome = await callTool(
      toolThrough(proxy, resolver, { ca: tls.cert }),
      { url: "https://docs.test/guide" },
      config,
    );
    expect(proxy.connects).toEqual([`${PUBLIC_V4}:443`]);
    expect(names).toEqual(["docs.test"]);
    expect(internal.requests).toHaveLength(0);
    expect(outcome).toMatchObject({ success: true });
    expect(outcome.output.endsWith("secure page for docs.test")).toBe(true);
  });

  it("still verifies the certificate against the URL's name inside the tunnel", async () => {
    const { site } = await tlsSite();
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }];
    const proxy = await proxyWith(() => ({ port: site.port }));
    const outcome = await callTool(
      toolThrough(proxy, resolver, { ca: tls.cert }),
      { url: "https://other.test/" },
      config,
    );
    expect(proxy.connects).toEqual([`${PUBLIC_V4}:443`]);
    expect(outcome.success).toBe(false);
    expect(outcome.output).toMatch(/^fetch https:\/\/other\.test\/: .*(altname|does not match)/i);
    expect(site.requests).toHaveLength(0);
  });

  it("speaks TLS to an https:// proxy, and TLS to the origin inside the tunnel", async () => {
    const { site, names } = await tlsSite();
    const proxyTls = makeCertificate(["localhost"]);
    const proxy = await startProxy(() => ({ port: site.port }), proxyTls);
    proxies.push(proxy);
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }];
    const tool = createWebFetchTool(config, {
      resolver,
      proxy: { httpProxy: "", httpsProxy: proxy.url, noProxy: "" },
      unsafeCaForTests: `${tls.cert}\n${proxyTls.cert}`,
    });
    const outcome = await callTool(tool, { url: "https://docs.test/" }, config);
    expect(outcome.output.endsWith("secure page for docs.test")).toBe(true);
    expect(proxy.connects).toEqual([`${PUBLIC_V4}:443`]);
    expect(names).toEqual(["docs.test"]);
  });

  it("uses HTTPS_PROXY for https URLs and HTTP_PROXY for http ones", async () => {
    const { site } = await tlsSite();
    const plain = await serve((_request, response) => {
      response.writeHead(200, { "content-type": "text/plain" }).end("plain page");
    });
    const httpsProxy = await proxyWith(() => ({ port: site.port }));
    const httpProxy = await proxyWith(() => ({ port: plain.port }));
    const resolver: Resolver = async () => [{ address: PUBLIC_V4, family: 4 }];
    const tool = createWebFetchTool(config, {
      resolver,
      proxy: { httpProxy: httpProxy.url, httpsProxy: httpsProxy.url, noProxy: "" },
      unsafeCaForTests: tls.cert,
    });
    expect((await callTool(tool, { url: "https://docs.test:8443/" }, config)).output).toContain(
      "secure page for docs.test:8443",
    );
    expect((await callTool(tool, { url: "http://docs.test/" }, config)).output).toContain("plain page");
    expect(httpsProxy.connects).toEqual([`${PUBLIC_V4}:8443`]);
    expect(httpProxy.connects).toEqual([`${PUBLIC_V4}:80`]);
  });
});
