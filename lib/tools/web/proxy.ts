// Which proxy a web request uses: `HTTP_PROXY` / `HTTPS_PROXY` / `NO_PROXY` (lowercase spellings
// first), read when the request starts, with the same rules as undici's EnvHttpProxyAgent so
// web_fetch and the provider agree on what is proxied.

/** Proxy settings; an absent field falls back to the environment. An empty string means none. */
export type ProxySettings = { httpProxy?: string; httpsProxy?: string; noProxy?: string };

export type ProxyChoice = { ok: true; proxy: URL | undefined } | { ok: false; error: string };

type Env = Readonly<Record<string, string | undefined>>;

const DEFAULT_PORTS: Record<string, number> = { "http:": 80, "https:": 443 };

/**
 * The proxy for `url`, or `undefined` to connect directly: `HTTPS_PROXY` for https URLs (falling
 * back to `HTTP_PROXY`), `HTTP_PROXY` for http, none when `NO_PROXY` matches the host.
 */
export function chooseProxy(url: URL, settings: ProxySettings = {}, env: Env = process.env): ProxyChoice {
  const http = pick(settings.httpProxy, "httpProxy", env, "http_proxy", "HTTP_PROXY");
  const https = pick(settings.httpsProxy, "httpsProxy", env, "https_proxy", "HTTPS_PROXY");
  const chosen = url.protocol === "https:" && https.value !== "" ? https : http;
  if (chosen.value === "") return { ok: true, proxy: undefined };
  const noProxy = settings.noProxy ?? env["no_proxy"] ?? env["NO_PROXY"] ?? "";
  if (bypassesProxy(url, noProxy)) return { ok: true, proxy: undefined };
  return parseProxyUrl(chosen.value, chosen.name);
}

function pick(setting: string | undefined, option: string, env: Env, lower: string, upper: string) {
  if (setting !== undefined) return { value: setting, name: `the ${option} option` };
  const lowerValue = env[lower];
  if (lowerValue !== undefined) return { value: lowerValue, name: lower };
  return { value: env[upper] ?? "", name: upper };
}

/** Parses a proxy URL; `host:port` without a scheme means http. The value (it may hold a password) is never echoed. */
export function parseProxyUrl(value: string, name: string): ProxyChoice {
  let proxy: URL;
  try {
    proxy = new URL(value.includes("://") ? value : `http://${value}`);
  } catch {
    return { ok: false, error: `the proxy in ${name} is not a valid URL` };
  }
  if (proxy.protocol !== "http:" && proxy.protocol !== "https:") {
    return {
      ok: false,
      error: `the proxy in ${name} uses ${proxy.protocol.slice(0, -1)}; web_fetch supports http and https proxies`,
    };
  }
  if (proxy.hostname === "") return { ok: false, error: `the proxy in ${name} has no host` };
  return { ok: true, proxy };
}

/**
 * `NO_PROXY`: entries split on commas and white space, each `host` or `host:port`, lowercased.
 * `*` alone bypasses every host; an entry starting with `.` or `*.` matches by suffix; any other
 * entry matches only that host. IPv6 hosts are written with brackets.
 */
export function bypassesProxy(url: URL, noProxy: string): boolean {
  const entries = noProxy.split(/[,\s]/).filter((entry) => entry !== "");
  if (entries.length === 0) return false;
  if (noProxy === "*") return true;
  const hostname = url.host.replace(/:\d*$/, "").toLowerCase();
  const port = Number.parseInt(url.port, 10) || DEFAULT_PORTS[url.protocol] || 0;
  for (const entry of entries) {
    const parsed = /^(.+):(\d+)$/.exec(entry);
    const host = (parsed ? parsed[1]! : entry).toLowerCase();
    const entryPort = parsed ? Number.parseInt(parsed[2]!, 10) : 0;
    if (entryPort !== 0 && entryPort !== port) continue;
    if (/^[.*]/.test(host) ? hostname.endsWith(host.replace(/^\*/, "")) : hostname === host) return true;
  }
  return false;
}
