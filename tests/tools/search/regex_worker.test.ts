// grep's worker thread in-process: batches matched in order, a catastrophic pattern ended by cancel (its thread
// really stops) and by the deadline, and the idle worker reused by the next search.
import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { type MatchBatch, RegexMatcher } from "../../../lib/tools/search/regex_worker.ts";
import { waitFor } from "../../support/wait.ts";

function batch(...texts: string[]): MatchBatch {
  const bytes = Buffer.from(texts.join(""), "utf8");
  const data = new ArrayBuffer(bytes.length);
  new Uint8Array(data).set(bytes);
  const files: MatchBatch["files"] = [];
  let start = 0;
  for (const text of texts) {
    const end = start + Buffer.byteLength(text);
    files.push({ start, end });
    start = end;
  }
  return { data, files };
}

function matcher(source: string, options: { deadlineMs?: number; signal?: AbortSignal } = {}): RegexMatcher {
  return new RegexMatcher({
    source,
    flags: "gm",
    maxLineChars: 20,
    deadlineMs: options.deadlineMs ?? 600_000,
    signal: options.signal ?? new AbortController().signal,
  });
}

const CATASTROPHIC = `${"a".repeat(40)}b\n`;
const threads = () => (process.platform === "linux" ? readdirSync("/proc/self/task").length : 0);

describe("grep's regex worker", () => {
  it("answers batches in order with counts and the first lines, cut to the line limit", async () => {
    const search = matcher("ne+dle");
    const first = search.match(batch("a needle\nno\nneedle again\n", "x\n"), 10);
    const second = search.match(batch(`${"z".repeat(30)} needle\n`), 1);
    expect(await first).toEqual({
      kind: "matched",
      files: [{ count: 2, lines: [[1, "a needle"], [3, "needle again"]] }, { count: 0, lines: [] }],
    });
    expect(await second).toEqual({
      kind: "matched",
      files: [{ count: 1, lines: [[1, `${"z".repeat(20)}… [line cut, 17 more characters]`]] }],
    });
    search.close();
  });

  it("keeps only as many lines as asked, counting them all", async () => {
    const search = matcher("x");
    expect(await search.match(batch("x\nx\nx\n", "x\n"), 2)).toEqual({
      kind: "matched",
      files: [{ count: 3, lines: [[1, "x"], [2, "x"]] }, { count: 1, lines: [] }],
    });
    search.close();
  });

  it.skipIf(process.platform !== "linux")("stops a catastrophic search on cancel: its thread ends", async () => {
    // A finished search leaves its worker idle for the next one; the catastrophic search takes it.
    const warm = matcher("a");
    await warm.match(batch("a\n"), 1);
    warm.close();
    const withIdle = threads();
    const cancel = new AbortController();
    const search = matcher("^(a+)+$", { signal: cancel.signal });
    const result = search.match(batch(CATASTROPHIC), 10);
    cancel.abort();
    expect(await result).toEqual({ kind: "cancelled" });
    // Later batches of the same call are refused the same way.
    expect(await search.match(batch("a\n"), 1)).toEqual({ kind: "cancelled" });
    search.close();
    await waitFor(() => threads() < withIdle, { what: "the worker thread to end", timeoutMs: 10_000 });
  });

  it("ends a search whose worker answers nothing before the deadline", async () => {
    const search = matcher("^(a+)+$", { deadlineMs: 50 });
    expect(await search.match(batch(CATASTROPHIC), 10)).toEqual({ kind: "deadline" });
    search.close();
    const next = matcher("b$");
    expect(await next.match(batch(CATASTROPHIC), 10)).toEqual({
      kind: "matched",
      files: [{ count: 1, lines: [[1, `${"a".repeat(20)}… [line cut, 21 more characters]`]] }],
    });
    next.close();
  });

  it("reports a pattern the worker cannot run as a failure", async () => {
    const search = matcher("(");
    expect(await search.match(batch("x\n"), 1)).toMatchObject({
      kind: "failed",
      message: expect.stringContaining("("),
    });
    search.close();
  });
});
