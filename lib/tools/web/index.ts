// Web access: web_fetch (with the SSRF guard of spec §10) and web_search.

import type { ResolvedConfig } from "../../config/index.ts";
import type { Tool } from "../types.ts";
import { createWebFetchTool } from "./web_fetch.ts";
import type { WebFetchOptions } from "./web_fetch.ts";
import { createWebSearchTool } from "./web_search.ts";
import type { WebSearchOptions } from "./web_search.ts";

export type { WebFetchOptions } from "./web_fetch.ts";
export { createWebFetchTool } from "./web_fetch.ts";
export type { WebSearchOptions } from "./web_search.ts";
export { createWebSearchTool } from "./web_search.ts";
export type { ResolvedAddress, Resolver } from "./resolve.ts";
export { isPublicAddress } from "./ssrf.ts";

/**
 * The web tools of a tool session (spec §9): `web_fetch` when `web.enabled`, plus `web_search`
 * for the `searxng` backend or `brave` with a usable key. Tool-free sessions must not call this.
 */
export function createWebTools(
  config: ResolvedConfig,
  options: { fetch?: WebFetchOptions; search?: WebSearchOptions } = {},
): Tool[] {
  if (!config.web.enabled) return [];
  const tools = [createWebFetchTool(config, options.fetch)];
  const search = createWebSearchTool(config, options.search);
  if (search !== undefined) tools.push(search);
  return tools;
}
