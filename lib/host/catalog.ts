// Per-session tool catalog revisions (host spec §6.6).
import type { WireToolDefinition } from "./protocol.ts";

export interface CachedCatalog {
  revision: number;
  tools: WireToolDefinition[];
}

export type CatalogResolution = { ok: true; tools: WireToolDefinition[] } | { ok: false; message: string };

/** Resolves an execute's tools against the session cache, updating the cache when it should. */
export function resolveCatalog(
  holder: { catalog: CachedCatalog | null },
  revision: number | null,
  tools: WireToolDefinition[],
): CatalogResolution {
  if (revision === null) return { ok: true, tools };
  if (revision === 0) return { ok: false, message: "invalid code-mode catalog revision" };
  const cached = holder.catalog;
  if (tools.length > 0) {
    if (cached === null || revision > cached.revision) {
      holder.catalog = { revision, tools };
      return { ok: true, tools };
    }
    if (revision === cached.revision) {
      return jsonEqual(tools, cached.tools) ? { ok: true, tools } : { ok: false, message: "conflicting code-mode catalog revision" };
    }
    return { ok: true, tools };
  }
  if (cached !== null && revision === cached.revision) return { ok: true, tools: cached.tools };
  return { ok: false, message: "unknown code-mode catalog revision" };
}

/** Structural equality of JSON values (object key order ignored). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    return a.length === other.length && a.every((value, index) => jsonEqual(value, other[index]));
  }
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left);
  if (keys.length !== Object.keys(right).length) return false;
  return keys.every((key) => Object.hasOwn(right, key) && jsonEqual(left[key], right[key]));
}
