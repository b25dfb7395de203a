// Where a configuration value came from, for `scv config`: every leaf key of a layer's table.
import { isTable, type RawTable } from "./schema.ts";

/** Sets `origin` for every dotted leaf key of `table` (arrays and string maps count as one leaf). */
export function recordOrigins(table: RawTable, origin: string, into: Map<string, string>, prefix = ""): void {
  for (const [key, value] of Object.entries(table)) {
    const dotted = prefix === "" ? key : `${prefix}.${key}`;
    if (isTable(value) && !isLeafTable(dotted)) recordOrigins(value, origin, into, dotted);
    else into.set(dotted, origin);
  }
}

/** Tables that are one value: provider headers. */
function isLeafTable(dotted: string): boolean {
  return dotted.endsWith(".headers");
}
