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
      return jsonEqual(tools, cached.tools)
        ? { ok: true, tools }
        : { ok: false, message: "conflicting code-mode catalog revision" };
    }
    return { ok: true, tools };
  }
  if (cached !== null && revision === cached.revision) return { ok: true, tools: cached.tools };
  return { ok: false, message: "unknown code-mode catalog revision" };
}

/**
 * Structural equality of JSON values (object key order ignored). Iterative: a client's schema
 * may nest deeper than the call stack allows (frames cap nesting, but callers in process need not).
 */
export function jsonEqual(a: unknown, b: unknown): boolean {
  const pending: unknown[] = [a, b];
  while (pending.length > 0) {
    const right = pending.pop();
    const left = pending.pop();
    if (left === right) continue;
    if (typeof left !== "object" || typeof right !== "object" || left === null || right === null) return false;
    const isArray = Array.isArray(left);
    if (isArray !== Array.isArray(right)) return false;
    if (isArray) {
      const other = right as unknown[];
      if (left.length !== other.length) return false;
      for (let index = 0; index < left.length; index++) pending.push(left[index], other[index]);
      continue;
    }
    const leftRecord = left as Record<string, unknown>;
    const rightRecord = right as Record<string, unknown>;
    const keys = Object.keys(leftRecord);
    if (keys.length !== Object.keys(rightRecord).length) return false;
    for (const key of keys) {
      if (!Object.hasOwn(rightRecord, key)) return false;
      pending.push(leftRecord[key], rightRecord[key]);
    }
  }
  return true;
}
