// The paths a file tool declares for policy: the path as given and, when a symlink makes it land elsewhere, where
// it lands, both workspace-relative and normalised (a rule about either must see the call).
import { normalizePath } from "../policy/index.ts";

export function touchedPaths(given: string, resolved: string): string[] {
  const paths = [normalizePath(given)];
  const landed = normalizePath(resolved);
  if (resolved !== "" && !paths.includes(landed)) paths.push(landed);
  return paths;
}
