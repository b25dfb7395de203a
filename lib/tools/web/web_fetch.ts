// The `web_fetch` tool (spec §9, §10): URL rules and risk in prepare, the guarded fetch in run.

import type { ResolvedConfig } from "../../config/index.ts";
import type { ObjectSchema } from "../schema.ts";
import { validateArguments } from "../schema.ts";
import { boundedChars } from "../../util/text_bounds.ts";
import type { Tool } from "../types.ts";
import { runWebFetch } from "./fetch.ts";
import type { FetchSettings } from "./fetch.ts";
import type { ProxySettings } from "./proxy.ts";
import { systemResolver } from "./resolve.ts";
import type { AddressPolicy, Resolver } from "./resolve.ts";
import { isPublicAddress } from "./ssrf.ts";
import { checkFetchUrl, isAutoApproved } from "./url_rules.ts";

export type WebFetchOptions = {
  /** Replaces the system resolver (every A and AAAA record of a name). */
  resolver?: Resolver;
  /** Replaces the environment's proxy settings. */
  proxy?: ProxySettings;
  /**
   * Tests only: which addresses may be contacted, replacing the §10 guard (and
   * `web.allow_private_addresses`). Configuration can never set it.
   */
  unsafeAddressPolicyForTests?: AddressPolicy;
  /** Tests only: an extra trusted CA certificate (PEM). */
  unsafeCaForTests?: string;
};

type FetchArgs = { url: string; offset?: number };

const SUMMARY_URL_CHARS = 2000;

export function createWebFetchTool(config: ResolvedConfig, options: WebFetchOptions = {}): Tool {
  const web = config.web;
  const parameters: ObjectSchema = {
    type: "object",
    properties: {
      url: { type: "string", description: "The http or https URL to fetch" },
      offset: {
        type: "integer",
        minimum: 0,
        description: "Character offset to start from, for the next part of a long page (default 0)",
      },
    },
    required: ["url"],
    additionalProperties: false,
  };
  const allowed: AddressPolicy = options.unsafeAddressPolicyForTests ??
    (web.allow_private_addresses ? () => true : isPublicAddress);
  const settings: FetchSettings = {
    maxBytes: web.fetch_max_bytes,
    timeoutMs: web.fetch_timeout_seconds * 1000,
    maxRedirects: web.max_redirects,
    autoApproveDomains: web.auto_approve_domains,
    outputLimitBytes: config.tools.output_limit_bytes,
    allowed,
    resolver: options.resolver ?? systemResolver,
    ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
    ...(options.unsafeCaForTests !== undefined ? { ca: options.unsafeCaForTests } : {}),
  };
  return {
    name: "web_fetch",
    description: describeWebFetch(web.auto_approve_domains),
    parameters,
    prepare(args) {
      const checked = validateArguments<FetchArgs>(parameters, args);
      if (!checked.ok) return { error: checked.error };
      const url = checkFetchUrl(checked.value.url);
      if (!url.ok) return { error: url.error };
      const autoApproved = isAutoApproved(url.url, web.auto_approve_domains);
      const summaryUrl = boundedChars(url.text, SUMMARY_URL_CHARS);
      return {
        risk: autoApproved ? "read_only" : "network",
        access: { effect: "fetch", domain: url.url.hostname.toLowerCase() },
        summary:
          `Fetch ${summaryUrl} with an HTTP GET (no cookies or credentials). The full URL is sent to ${url.url.hostname}.`,
        run: (context) =>
          runWebFetch(
            { url: url.url, text: url.text, offset: checked.value.offset ?? 0, autoApproved },
            settings,
            context.signal,
          ),
      };
    },
  };
}

function describeWebFetch(domains: readonly string[]): string {
  const approval = domains.length === 0
    ? "Every fetch needs the user's approval."
    : `HTTPS URLs on these hosts are fetched without asking: ${
      domains.join(", ")
    } (a "*." entry covers subdomains); anything else needs the user's approval.`;
  return (
    "Fetch a web page or text document with an HTTP GET (no cookies or credentials) and return it as readable text, " +
    "HTML converted with numbered links. Only public internet addresses are reachable; text content types only. " +
    "Long pages come in parts: the output ends with the offset to pass for the next part. " +
    approval
  );
}
