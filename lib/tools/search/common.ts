// What grep, glob and list share: resolving their `path` argument to a folder (or file) inside the workspace, and
// the risk of looking there (a secret-like path asks, as for `read`).

import { relative } from "node:path";
import { isSecretLikePath } from "../../policy/index.ts";
import type { DeclaredAccess, Risk } from "../types.ts";
import { touchedPaths } from "../touched_paths.ts";
import {
  canonicalWorkspace,
  checkRelativePath,
  confinementError,
  probePath,
  resolveExisting,
  WorkspacePathError,
} from "../../policy/index.ts";

/** `path` as given, or the workspace root for undefined, "" and "." */
export function givenPath(path: string | undefined): string {
  return path === undefined || path === "" || path === "." || path === "./" ? "." : path;
}

/** The shape and confinement checks of `prepare`: an error message, or the risk of reading there. */
export function checkSearchPath(
  tool: string,
  workspace: string,
  path: string,
): { error: string } | { risk: Risk; access: DeclaredAccess } {
  if (path !== ".") {
    const shape = checkRelativePath(path);
    if (shape !== undefined) return { error: shape };
  }
  const probe = probePath(workspace, path);
  if (probe.escaped)
    return { error: confinementError(tool, path, new WorkspacePathError("resolves outside the workspace")).message };
  const secret = path !== "." && (isSecretLikePath(path) || isSecretLikePath(probe.resolvedRelative));
  return {
    risk: secret ? "filesystem" : "read_only",
    access: { effect: "read", reads: touchedPaths(path, probe.resolvedRelative) },
  };
}

/** The real, workspace-relative form of an existing `path` ("" for the root); throws WorkspacePathError. */
export async function resolveStart(tool: string, workspace: string, path: string): Promise<string> {
  const real = await resolveExisting(workspace, path, tool);
  return relative(canonicalWorkspace(workspace), real).split("\\").join("/");
}

/** `text` cut to `max` characters with a marker saying so. */
export function cutLine(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [line cut, ${text.length - max} more characters]`;
}
