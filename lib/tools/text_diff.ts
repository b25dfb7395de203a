// Unified diffs of two texts (for edit/apply_patch output and approval previews), and bounding them for the wire.

type Op = { kind: " " | "-" | "+"; line: string };

const CONTEXT = 3;
/** Beyond this many differing lines the middle is shown as a plain replacement (Myers is O((N+M)·D)). */
const MAX_EDIT_DISTANCE = 1000;

/** Marks a last line without a line ending, so it differs from the same text with one (as in git's diffs). */
const NO_EOL = "\u0000no-eol";

/** Splits text into lines, each without its line ending; a final line ending does not make an empty line. */
function splitLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  const complete = lines.at(-1) === "";
  if (complete) lines.pop();
  const stripped = lines.map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  if (!complete) stripped[stripped.length - 1] += NO_EOL;
  return stripped;
}

/**
 * A unified diff (`--- a/path`, `+++ b/path`, `@@` hunks with 3 lines of context). `before` undefined means
 * the file is created, `after` undefined that it is deleted. Empty when nothing changes.
 */
export function unifiedDiff(
  path: string,
  before: string | undefined,
  after: string | undefined,
  movedTo?: string,
): string {
  if (before === after && movedTo === undefined) return "";
  const oldLines = splitLines(before ?? "");
  const newLines = splitLines(after ?? "");
  const header = [
    before === undefined ? "--- /dev/null" : `--- a/${path}`,
    after === undefined ? "+++ /dev/null" : `+++ b/${movedTo ?? path}`,
  ];
  const ops = diffLines(oldLines, newLines);
  const hunks = buildHunks(ops);
  if (hunks.length === 0 && movedTo === undefined) return "";
  return [...header, ...hunks].join("\n") + "\n";
}

function diffLines(a: string[], b: string[]): Op[] {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start += 1;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA -= 1;
    endB -= 1;
  }
  const ops: Op[] = a.slice(0, start).map((line) => ({ kind: " ", line }));
  ops.push(...myers(a.slice(start, endA), b.slice(start, endB)));
  ops.push(...a.slice(endA).map((line): Op => ({ kind: " ", line })));
  return ops;
}

function myers(a: string[], b: string[]): Op[] {
  const n = a.length;
  const m = b.length;
  const replace =
    (): Op[] => [...a.map((line): Op => ({ kind: "-", line })), ...b.map((line): Op => ({ kind: "+", line }))];
  if (n === 0 || m === 0) return replace();
  const max = Math.min(n + m, MAX_EDIT_DISTANCE);
  const offset = max + 1;
  let v: Int32Array = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d += 1) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!)
        ? v[offset + k + 1]!
        : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x += 1;
        y += 1;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  if (!found) return replace();
  trace.push(v);
  // Walk back through the saved rows.
  const ops: Op[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 2; d >= 0; d -= 1) {
    v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const prevK = down ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : v[offset + prevK]!;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      ops.push({ kind: " ", line: a[x - 1]! });
      x -= 1;
      y -= 1;
    }
    if (d === 0) break;
    if (down) ops.push({ kind: "+", line: b[y - 1]! });
    else ops.push({ kind: "-", line: a[x - 1]! });
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    ops.push({ kind: " ", line: a[x - 1]! });
    x -= 1;
    y -= 1;
  }
  return ops.reverse();
}

function buildHunks(ops: Op[]): string[] {
  const rows: string[] = [];
  let index = 0;
  // Line numbers (1-based) in old and new before ops[index].
  const oldAt: number[] = [];
  const newAt: number[] = [];
  let oldLine = 1;
  let newLine = 1;
  for (const op of ops) {
    oldAt.push(oldLine);
    newAt.push(newLine);
    if (op.kind !== "+") oldLine += 1;
    if (op.kind !== "-") newLine += 1;
  }
  while (index < ops.length) {
    while (index < ops.length && ops[index]!.kind === " ") index += 1;
    if (index >= ops.length) break;
    const start = Math.max(0, index - CONTEXT);
    let end = index;
    // Extend while changes are within 2×CONTEXT of each other.
    for (;;) {
      while (end < ops.length && ops[end]!.kind !== " ") end += 1;
      let gap = end;
      while (gap < ops.length && ops[gap]!.kind === " ") gap += 1;
      if (gap < ops.length && gap - end <= 2 * CONTEXT) {
        end = gap;
        continue;
      }
      end = Math.min(ops.length, end + CONTEXT);
      break;
    }
    const slice = ops.slice(start, end);
    const oldCount = slice.filter((op) => op.kind !== "+").length;
    const newCount = slice.filter((op) => op.kind !== "-").length;
    const oldStart = oldCount === 0 ? oldAt[start]! - 1 : oldAt[start]!;
    const newStart = newCount === 0 ? newAt[start]! - 1 : newAt[start]!;
    rows.push(`@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`);
    for (const op of slice) {
      if (op.line.endsWith(NO_EOL))
        rows.push(`${op.kind}${op.line.slice(0, -NO_EOL.length)}`, "\\ No newline at end of file");
      else rows.push(`${op.kind}${op.line}`);
    }
    index = end;
  }
  return rows;
}

/** Limits for the `diff` field of `approval.requested`. */
export const APPROVAL_DIFF_MAX_BYTES = 65_536;
export const APPROVAL_DIFF_MAX_LINES = 2_000;

/** `diff` cut to whole lines within the limits, ending with a notice of what was left out. */
export function boundDiff(
  diff: string,
  maxBytes = APPROVAL_DIFF_MAX_BYTES,
  maxLines = APPROVAL_DIFF_MAX_LINES,
): string {
  const lines = diff.endsWith("\n") ? diff.slice(0, -1).split("\n") : diff.split("\n");
  let bytes = 0;
  let kept = 0;
  for (const line of lines) {
    const size = Buffer.byteLength(line, "utf8") + 1;
    if (kept >= maxLines || bytes + size > maxBytes) break;
    bytes += size;
    kept += 1;
  }
  if (kept === lines.length) return diff;
  return `${lines.slice(0, kept).join("\n")}\n… diff cut: ${lines.length - kept} more lines not shown\n`;
}
