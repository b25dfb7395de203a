// What grep, glob and list share: resolving their `path` argument to a folder (or file) inside the workspace, the
// risk of looking there (judged as `read` judges it: scv's own files are refused, a secret-like or hard-linked
// file asks), and which entries a walk may show.

import { relative } from "node:path";
import type { ResolvedConfig } from "../../config/index.ts";
import { type FileVerdict, judgeEntry, probeForRead, type SearchStanding } from "../file_guard.ts";
import type { DeclaredAccess, Risk } from "../types.ts";
import {
  canonicalWorkspace,
  checkRelativePath,
  confinementError,
  probePath,
  resolveExisting,
  toolPath,
  WorkspacePathError,
} from "../../policy/index.ts";
import type { WalkEntry } from "./walk.ts";
import { touchedPaths } from "../touched_paths.ts";

/**
 * `path` as given, or the workspace root for undefined, "" and "."; an absolute path inside the workspace (models
 * send them) becomes relative, one outside it is an error.
 */
export function givenPath(workspace: string, path: string | undefined): { path: string } | { error: string } {
  if (path === undefined || path === "" || path === "." || path === "./") return { path: "." };
  return path.startsWith("/") ? toolPath(workspace, path, { folder: true }) : { path };
}

/**
 * The shape and confinement checks of `prepare`: an error message, or the risk of reading there with the
 * verdict it was decided on (a secret-like path, or a hard-linked file, asks, as for `read`).
 */
export function checkSearchPath(
  tool: string,
  workspace: string,
  config: ResolvedConfig,
  path: string,
): { error: string } | { risk: Risk; verdict: FileVerdict } {
  if (path === ".") return { risk: "read_only", verdict: { secret: false } };
  const shape = checkRelativePath(path);
  if (shape !== undefined) return { error: shape };
  const probe = probePath(workspace, path);
  if (probe.escaped)
    return { error: confinementError(tool, path, new WorkspacePathError("resolves outside the workspace")).message };
  let verdict: FileVerdict;
  try {
    verdict = probeForRead(config, workspace, path, tool);
  } catch (error) {
    if (error instanceof WorkspacePathError) return { error: error.message };
    throw error;
  }
  return { risk: verdict.secret ? "filesystem" : "read_only", verdict };
}

/** The real, workspace-relative form of an existing `path` ("" for the root); throws WorkspacePathError. */
export async function resolveStart(tool: string, workspace: string, path: string): Promise<string> {
  const real = await resolveExisting(workspace, path, tool);
  return relative(canonicalWorkspace(workspace), real).split("\\").join("/");
}

/** True when a search may show an entry of this standing (secret-like ones only below an approved path). */
export function mayShow(standing: SearchStanding, secretsApproved: boolean): boolean {
  return standing === "ordinary" || (standing === "secret" && secretsApproved);
}

/**
 * The walk's `admit` for grep and glob: folders that may not be shown (scv's instance home, secret-like ones)
 * are not entered; files are judged later, by the tool.
 */
export function admitsEntry(
  config: ResolvedConfig,
  workspace: string,
  secretsApproved: boolean,
): (entry: WalkEntry) => boolean {
  return (entry) =>
    entry.kind !== "directory" || mayShow(judgeEntry(config, workspace, entry.path, "directory"), secretsApproved);
}

/** The notice for entries a search left out, or none. */
export function leftOutNotice(count: number, what: "file" | "entry", verb: string): string[] {
  if (count === 0) return [];
  const noun = what === "file" ? (count === 1 ? "file" : "files") : count === 1 ? "entry" : "entries";
  return [
    `(${count} ${noun} ${verb}: secret-like, hard-linked, linked out of the workspace or scv's own; read asks before opening a secret-like file)`,
  ];
}

/** `text` cut to `max` characters with a marker saying so. */
export function cutLine(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… [line cut, ${text.length - max} more characters]`;
}

/** What a search declares for policy: it reads the folder (or file) it is given. */
export function searchAccess(path: string): DeclaredAccess {
  return { effect: "read", reads: touchedPaths(path, path) };
}
