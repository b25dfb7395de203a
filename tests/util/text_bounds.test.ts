import fc from "fast-check";
import { describe, expect, it, onTestFinished, vi } from "vitest";
import { createProgressReporter } from "../../lib/tools/progress.ts";
import { boundedChars, completeUtf8Length, cutToBytes } from "../../lib/util/text_bounds.ts";

describe("completeUtf8Length", () => {
  it("drops only a trailing incomplete character", () => {
    const bytes = Buffer.from("a😀é", "utf8"); // 1 + 4 + 2 bytes
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => completeUtf8Length(bytes.subarray(0, n)))).toEqual([1, 1, 1, 1, 5, 5, 7]);
    expect(completeUtf8Length(new Uint8Array())).toBe(0);
  });

  it("always leaves a decodable prefix of the original text", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme" }), fc.nat(), (text, cut) => {
        const bytes = Buffer.from(text, "utf8");
        const head = bytes.subarray(0, Math.min(cut, bytes.length));
        const kept = new TextDecoder("utf-8", { fatal: true }).decode(head.subarray(0, completeUtf8Length(head)));
        expect(text.startsWith(kept)).toBe(true);
        expect(Buffer.byteLength(kept)).toBeGreaterThan(head.length - 4);
      }),
    );
  });
});

describe("boundedChars and cutToBytes", () => {
  it("count code points, not UTF-16 units", () => {
    expect(boundedChars("😀😀😀", 2)).toBe("😀😀…");
    expect(boundedChars("😀😀", 2)).toBe("😀😀");
    expect(cutToBytes("éé", 3)).toBe("é");
    expect(cutToBytes("abc", 3)).toBe("abc");
  });
});

describe("createProgressReporter", () => {
  it("reports the last complete non-empty line per stream, joining split chunks and characters", () => {
    const seen: string[] = [];
    const reporter = createProgressReporter((text) => seen.push(text), 0);
    const bytes = Buffer.from("first\nsec😀nd", "utf8");
    reporter.push(bytes.subarray(0, 9), "stdout"); // "first\nsec" → reports "first"
    reporter.push(Buffer.from("partial err"), "stderr"); // no newline yet: nothing
    reporter.push(bytes.subarray(9, 11), "stdout"); // half an emoji
    reporter.push(Buffer.concat([bytes.subarray(11), Buffer.from("\r\n\n  \n")]), "stdout");
    reporter.stop();
    reporter.push(Buffer.from("after stop\n"), "stdout");
    expect(seen).toEqual(["first", "sec😀nd"]);
  });

  it("reports at most once per interval, the latest line winning, and nothing pending after stop", async () => {
    // Time is the subject: the reporter's clock (Date.now, setTimeout) is fake.
    vi.useFakeTimers({ toFake: ["Date", "setTimeout", "clearTimeout"] });
    onTestFinished(() => {
      vi.useRealTimers();
    });
    const seen: string[] = [];
    const reporter = createProgressReporter((text) => seen.push(text), 500);
    reporter.push(Buffer.from("line1\n"), "stdout");
    expect(seen).toEqual(["line1"]);
    for (let line = 2; line <= 8; line += 1) {
      await vi.advanceTimersByTimeAsync(150);
      reporter.push(Buffer.from(`line${line}\n`), "stdout");
    }
    // 1.05 s of lines every 150 ms: line1 at 0, then the latest line at 500 and at 1000 ms.
    expect(seen).toEqual(["line1", "line4", "line7"]);
    reporter.stop();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(seen).toEqual(["line1", "line4", "line7"]);
  });
});
