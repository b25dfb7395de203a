// Path relations that hold for any absolute, resolved paths (no file system access).
import { sep } from "node:path";

/** True when `candidate` (absolute, resolved) is `root` or below it. */
export function isInside(root: string, candidate: string): boolean {
  if (candidate === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return candidate.startsWith(prefix);
}
