// The URL shape rules and the auto-approve allowlist of spec §10.

const MAX_URL_BYTES = 4096;

export type UrlCheck = { ok: true; url: URL; text: string } | { ok: false; error: string };

/** Checks the model's URL: length, parse (after trimming), scheme, host, no credentials. */
export function checkFetchUrl(raw: string): UrlCheck {
  if (Buffer.byteLength(raw, "utf8") > MAX_URL_BYTES) return { ok: false, error: `url exceeds ${MAX_URL_BYTES} bytes` };
  const text = raw.trim();
  let url: URL;
  try {
    url = new URL(text);
  } catch (error) {
    return { ok: false, error: `invalid url: ${error instanceof Error ? error.message : String(error)}` };
  }
  const shape = checkUrlShape(url);
  return shape === undefined ? { ok: true, url, text } : { ok: false, error: shape };
}

/** The checks every redirect hop repeats: scheme, host, credentials. */
export function checkUrlShape(url: URL): string | undefined {
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    return `web_fetch supports only http and https URLs, not ${url.protocol.slice(0, -1)}`;
  }
  if (url.hostname === "") return "url has no host";
  if (url.username !== "" || url.password !== "") return "urls with embedded credentials are not allowed";
  return undefined;
}

function normalizeHost(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith(".") ? lower.slice(0, -1) : lower;
}

/**
 * Case-insensitive, trailing dot ignored; `*.example.org` matches subdomains at any depth but
 * never `example.org` itself; any other entry matches only itself.
 */
export function hostMatchesAllowlist(host: string, entries: readonly string[]): boolean {
  const name = normalizeHost(host);
  if (name === "") return false;
  for (const entry of entries) {
    const pattern = normalizeHost(entry);
    if (pattern.startsWith("*.")) {
      const suffix = pattern.slice(1);
      if (name.length > suffix.length && name.endsWith(suffix)) return true;
    } else if (pattern === name) {
      return true;
    }
  }
  return false;
}

/** An auto-approved fetch: an `https` URL on an allowlisted host. */
export function isAutoApproved(url: URL, entries: readonly string[]): boolean {
  return url.protocol === "https:" && hostMatchesAllowlist(url.hostname, entries);
}
