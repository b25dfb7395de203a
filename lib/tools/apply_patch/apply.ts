// Applying a parsed patch to file contents, in memory: the hunks run in order over a view of the files (so a later
// hunk sees an earlier one's result), and the outcome is each touched path's final content (or its deletion).
// Context is found exactly first, then ignoring trailing whitespace, then ignoring surrounding whitespace, then
// also treating typographic punctuation (dashes, quotes, non-breaking spaces) as its ASCII counterpart.

import type { PatchHunk, UpdateChunk } from "./parse.ts";

/** What the view needs from the file system: a file's text (undefined = missing), or a thrown error. */
export type FileSource = (path: string) => Promise<{ content: string; crlf: boolean } | undefined>;

export type PatchResult =
  | { ok: true; files: Map<string, FinalState>; summary: string[] }
  | { ok: false; error: string };

/** A path's content before the patch (undefined = did not exist) and after it (undefined = deleted). */
export type FinalState = { before: string | undefined; after: string | undefined; crlf: boolean; movedFrom?: string };

export async function applyPatch(hunks: PatchHunk[], read: FileSource): Promise<PatchResult> {
  const files = new Map<string, FinalState>();
  const current = async (path: string): Promise<FinalState> => {
    let state = files.get(path);
    if (state === undefined) {
      const found = await read(path);
      state = { before: found?.content, after: found?.content, crlf: found?.crlf ?? false };
      files.set(path, state);
    }
    return state;
  };
  const summary: string[] = [];
  for (const hunk of hunks) {
    switch (hunk.kind) {
      case "add": {
        // Like the Codex CLI, adding a file that exists replaces it.
        const state = await current(hunk.path);
        state.after = hunk.content;
        summary.push(`A ${hunk.path}`);
        break;
      }
      case "delete": {
        const state = await current(hunk.path);
        if (state.after === undefined) return { ok: false, error: `delete ${hunk.path}: the file does not exist` };
        state.after = undefined;
        summary.push(`D ${hunk.path}`);
        break;
      }
      case "update": {
        const state = await current(hunk.path);
        if (state.after === undefined) return { ok: false, error: `update ${hunk.path}: the file does not exist` };
        const updated = applyChunks(hunk.path, state.after, hunk.chunks);
        if (!updated.ok) return updated;
        if (hunk.moveTo !== undefined && hunk.moveTo !== hunk.path) {
          const destination = await current(hunk.moveTo);
          destination.after = updated.content;
          destination.crlf = state.crlf;
          destination.movedFrom = hunk.path;
          state.after = undefined;
          summary.push(`M ${hunk.moveTo}`);
        } else {
          state.after = updated.content;
          summary.push(`M ${hunk.path}`);
        }
        break;
      }
    }
  }
  return { ok: true, files, summary };
}

type ChunkOutcome = { ok: true; content: string } | { ok: false; error: string };

function applyChunks(path: string, content: string, chunks: UpdateChunk[]): ChunkOutcome {
  const lines = content.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const replacements: Array<{ at: number; length: number; lines: string[] }> = [];
  let cursor = 0;
  for (const [number, chunk] of chunks.entries()) {
    const where = `update ${path}: chunk ${number + 1} (patch line ${chunk.patchLine})`;
    if (chunk.context !== undefined) {
      const found = seek(lines, [chunk.context], cursor, false);
      if (found === undefined)
        return { ok: false, error: `${where}: could not find the context line '${chunk.context}'` };
      cursor = found + 1;
    }
    if (chunk.oldLines.length === 0) {
      // A pure addition goes at the end of the file.
      replacements.push({ at: lines.length, length: 0, lines: chunk.newLines });
      continue;
    }
    let pattern = chunk.oldLines;
    let replacement = chunk.newLines;
    let found = seek(lines, pattern, cursor, chunk.endOfFile);
    // A trailing empty context line often stands for the file's final newline.
    if (found === undefined && pattern.at(-1) === "") {
      pattern = pattern.slice(0, -1);
      if (replacement.at(-1) === "") replacement = replacement.slice(0, -1);
      found = pattern.length === 0 ? lines.length : seek(lines, pattern, cursor, chunk.endOfFile);
    }
    if (found === undefined) {
      return { ok: false, error: `${where}: could not find the lines it changes:\n${chunk.oldLines.join("\n")}` };
    }
    replacements.push({ at: found, length: pattern.length, lines: replacement });
    cursor = found + pattern.length;
  }
  replacements.sort((a, b) => a.at - b.at);
  for (let index = 1; index < replacements.length; index += 1) {
    const before = replacements[index - 1]!;
    if (before.at + before.length > replacements[index]!.at)
      return { ok: false, error: `update ${path}: two chunks change the same lines` };
  }
  for (const replacement of [...replacements].reverse())
    lines.splice(replacement.at, replacement.length, ...replacement.lines);
  return { ok: true, content: lines.length === 0 ? "" : lines.join("\n") + "\n" };
}

const PASSES: Array<(line: string) => string> = [
  (line) => line,
  (line) => line.trimEnd(),
  (line) => line.trim(),
  (line) => normalizePunctuation(line.trim()),
];

/** The first index ≥ start where `pattern` matches `lines` (with `endOfFile`, the match at the end is tried first). */
function seek(lines: string[], pattern: string[], start: number, endOfFile: boolean): number | undefined {
  if (pattern.length > lines.length) return undefined;
  for (const normal of PASSES) {
    const wanted = pattern.map(normal);
    const matchesAt = (at: number) => wanted.every((line, offset) => normal(lines[at + offset]!) === line);
    if (endOfFile) {
      const at = lines.length - pattern.length;
      if (at >= start && matchesAt(at)) return at;
    }
    for (let at = start; at <= lines.length - pattern.length; at += 1) if (matchesAt(at)) return at;
  }
  return undefined;
}

const PUNCTUATION: Record<string, string> = {
  "\u2010": "-",
  "\u2011": "-",
  "\u2012": "-",
  "\u2013": "-",
  "\u2014": "-",
  "\u2015": "-",
  "\u2212": "-",
  "\u2018": "'",
  "\u2019": "'",
  "\u201a": "'",
  "\u201b": "'",
  "\u201c": '"',
  "\u201d": '"',
  "\u201e": '"',
  "\u201f": '"',
  "\u00a0": " ",
  "\u2002": " ",
  "\u2003": " ",
  "\u2009": " ",
  "\u202f": " ",
  "\u3000": " ",
};

function normalizePunctuation(line: string): string {
  let result = "";
  for (const char of line) result += PUNCTUATION[char] ?? char;
  return result;
}
