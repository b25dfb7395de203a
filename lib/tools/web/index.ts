// Web access: web_fetch (with the SSRF guard of spec §10) and web_search.
export type { WebFetchOptions } from "./web_fetch.ts";
export { createWebFetchTool } from "./web_fetch.ts";
export type { WebSearchOptions } from "./web_search.ts";
export { createWebSearchTool } from "./web_search.ts";
export type { Resolver, ResolvedAddress } from "./resolve.ts";
export { isPublicAddress } from "./ssrf.ts";
