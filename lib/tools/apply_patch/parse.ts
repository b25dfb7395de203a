// The patch grammar the Codex CLI uses (and GPT models are trained on):
//
//   *** Begin Patch
//   *** Add File: <path>            then lines starting with "+"
//   *** Delete File: <path>
//   *** Update File: <path>
//   [*** Move to: <path>]
//   [@@ [context line]]             then lines starting with " ", "-" or "+" ; "*** End of File" ends a chunk at EOF
//   *** End Patch
//
// Marker lines may carry surrounding whitespace. The first chunk of an update may omit its "@@".

import { heredocBody } from "./heredoc.ts";

export type UpdateChunk = {
  /** The text after `@@ `, a line to find before the chunk's own lines. */
  context: string | undefined;
  oldLines: string[];
  newLines: string[];
  /** `*** End of File`: the chunk's lines end the file. */
  endOfFile: boolean;
  /** 1-based line of the patch where the chunk starts, for error messages. */
  patchLine: number;
};

export type PatchHunk =
  | { kind: "add"; path: string; content: string }
  | { kind: "delete"; path: string }
  | { kind: "update"; path: string; moveTo: string | undefined; chunks: UpdateChunk[] };

/** `cd`: the folder a `cd <folder> && apply_patch <<'EOF'` wrapping named; the hunks' paths are relative to it. */
export type ParsedPatch = { ok: true; hunks: PatchHunk[]; cd?: string } | { ok: false; error: string };

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File: ";
const DELETE = "*** Delete File: ";
const UPDATE = "*** Update File: ";
const MOVE = "*** Move to: ";
const EOF_MARKER = "*** End of File";

/** Parses a patch, or one wrapped in a heredoc as the Codex CLI accepts it (see heredoc.ts). */
export function parsePatch(input: string): ParsedPatch {
  const direct = parseBare(input);
  if (direct.ok) return direct;
  const wrapped = heredocBody(input);
  if (wrapped === undefined) return direct;
  const parsed = parseBare(wrapped.body);
  return parsed.ok && wrapped.cd !== undefined ? { ...parsed, cd: wrapped.cd } : parsed;
}

function parseBare(input: string): ParsedPatch {
  const lines = input.split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  let first = 0;
  while (first < lines.length && lines[first]!.trim() === "") first += 1;
  let last = lines.length - 1;
  while (last >= first && lines[last]!.trim() === "") last -= 1;
  const fail = (error: string): ParsedPatch => ({ ok: false, error: `invalid patch: ${error}` });
  if (first > last || lines[first]!.trim() !== BEGIN) return fail(`the first line of the patch must be '${BEGIN}'`);
  if (last === first || lines[last]!.trim() !== END) return fail(`the last line of the patch must be '${END}'`);
  const hunks: PatchHunk[] = [];
  let index = first + 1;
  while (index < last) {
    const header = lines[index]!.trim();
    const lineNumber = index + 1;
    if (header === "") {
      index += 1;
      continue;
    }
    if (header.startsWith(ADD)) {
      const path = header.slice(ADD.length).trim();
      index += 1;
      const content: string[] = [];
      while (index < last && lines[index]!.startsWith("+")) {
        content.push(lines[index]!.slice(1));
        index += 1;
      }
      hunks.push({ kind: "add", path, content: content.length === 0 ? "" : content.join("\n") + "\n" });
      continue;
    }
    if (header.startsWith(DELETE)) {
      hunks.push({ kind: "delete", path: header.slice(DELETE.length).trim() });
      index += 1;
      continue;
    }
    if (header.startsWith(UPDATE)) {
      const path = header.slice(UPDATE.length).trim();
      index += 1;
      let moveTo: string | undefined;
      if (index < last && lines[index]!.trim().startsWith(MOVE)) {
        moveTo = lines[index]!.trim().slice(MOVE.length).trim();
        index += 1;
      }
      const chunks: UpdateChunk[] = [];
      while (index < last && !isHunkHeader(lines[index]!)) {
        const parsed = parseChunk(lines, index, last, chunks.length === 0);
        if (!parsed.ok) return fail(parsed.error);
        chunks.push(parsed.chunk);
        index = parsed.next;
      }
      if (chunks.length === 0) return fail(`update file hunk for path '${path}' is empty (patch line ${lineNumber})`);
      hunks.push({ kind: "update", path, moveTo, chunks });
      continue;
    }
    return fail(
      `'${header}' is not a valid hunk header (patch line ${lineNumber}); valid hunk headers: '${ADD}{path}', '${DELETE}{path}', '${UPDATE}{path}'`,
    );
  }
  if (hunks.length === 0) return fail("no files were modified (the patch has no hunks)");
  return { ok: true, hunks };
}

function isHunkHeader(line: string): boolean {
  const trimmed = line.trim();
  return trimmed.startsWith(ADD) || trimmed.startsWith(DELETE) || trimmed.startsWith(UPDATE);
}

type ChunkResult = { ok: true; chunk: UpdateChunk; next: number } | { ok: false; error: string };

function parseChunk(lines: string[], start: number, last: number, first: boolean): ChunkResult {
  let index = start;
  let context: string | undefined;
  const head = lines[index]!;
  if (head.trim() === "@@") {
    index += 1;
  } else if (head.startsWith("@@ ")) {
    context = head.slice(3);
    index += 1;
  } else if (!first) {
    return { ok: false, error: `expected an '@@' line at patch line ${index + 1}, found '${head}'` };
  }
  const chunk: UpdateChunk = { context, oldLines: [], newLines: [], endOfFile: false, patchLine: start + 1 };
  let body = 0;
  while (index < last) {
    const line = lines[index]!;
    if (line.trim() === EOF_MARKER) {
      chunk.endOfFile = true;
      index += 1;
      break;
    }
    if (isHunkHeader(line) || (line.startsWith("@@") && body > 0)) break;
    if (line.startsWith("@@")) {
      return { ok: false, error: `the chunk at patch line ${start + 1} has no lines` };
    }
    const marker = line[0];
    if (line === "") {
      // An empty line in a chunk is an empty context line (editors strip the single space).
      chunk.oldLines.push("");
      chunk.newLines.push("");
    } else if (marker === " ") {
      chunk.oldLines.push(line.slice(1));
      chunk.newLines.push(line.slice(1));
    } else if (marker === "-") {
      chunk.oldLines.push(line.slice(1));
    } else if (marker === "+") {
      chunk.newLines.push(line.slice(1));
    } else {
      return {
        ok: false,
        error: `unexpected line at patch line ${
          index + 1
        }: '${line}'; every line of a chunk starts with ' ' (context), '+' (added) or '-' (removed)`,
      };
    }
    body += 1;
    index += 1;
  }
  if (body === 0) return { ok: false, error: `the chunk at patch line ${start + 1} has no lines` };
  return { ok: true, chunk, next: index };
}
