import { isTable, type RawTable } from "./schema.ts";

/** Deep merge of spec §7.1: tables merge key by key; scalars and arrays replace. Inputs are not modified. */
export function deepMerge(base: RawTable, overlay: RawTable): RawTable {
  const out: RawTable = { ...base };
  for (const [key, value] of Object.entries(overlay)) {
    const current = out[key];
    out[key] = isTable(current) && isTable(value) ? deepMerge(current, value) : value;
  }
  return out;
}
