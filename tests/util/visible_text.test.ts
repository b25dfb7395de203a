// Approval texts: nothing that hides or reorders text reaches the person deciding.
import { describe, expect, it } from "vitest";
import { visibleText } from "../../lib/util/visible_text.ts";
import { approvalTexts } from "../../lib/server/approvals.ts";

describe("visibleText", () => {
  it("escapes every bidi control, embedding, override and isolate", () => {
    const bidi = [0x061c, 0x200e, 0x200f, 0x202a, 0x202b, 0x202c, 0x202d, 0x202e, 0x2066, 0x2067, 0x2068, 0x2069];
    for (const code of bidi) {
      const escaped = `\\u${code.toString(16).padStart(4, "0")}`;
      expect(visibleText(`a${String.fromCodePoint(code)}b`)).toBe(`a${escaped}b`);
    }
  });

  it("escapes C0, DEL, C1, zero-width, BOM, separators, tags and lone surrogates", () => {
    expect(visibleText("\u0000\u0007\u001b[31m\u007f\u0085\u009b")).toBe(
      "\\u0000\\u0007\\u001b[31m\\u007f\\u0085\\u009b",
    );
    expect(visibleText("a\u200bb\u200dc\ufeffd\u2028e\u2029f\u00adg")).toBe(
      "a\\u200bb\\u200dc\\ufeffd\\u2028e\\u2029f\\u00adg",
    );
    expect(visibleText("x\u{e0041}y\ud800z")).toBe("x\\u{e0041}y\\ud800z");
  });

  it("keeps line feeds and tabs only in multi-line text; a carriage return is always escaped", () => {
    expect(visibleText("a\nb\tc\r")).toBe("a\\nb\\tc\\r");
    expect(visibleText("a\nb\tc\r\n", { multiline: true })).toBe("a\nb\tc\\r\n");
  });

  it("leaves ordinary text, including non-Latin scripts and emoji, alone", () => {
    const text = "npm test && echo 'héllo' — привет 你好 👍 \\u202e";
    expect(visibleText(text)).toBe(text);
  });
});

describe("approvalTexts", () => {
  it("escapes the summary on one line and makes the detail default to it", () => {
    expect(approvalTexts({ summary: "Read a\u202e.txt" })).toEqual({
      summary: "Read a\\u202e.txt",
      detail: "Read a\\u202e.txt",
    });
    expect(approvalTexts({ summary: "Run: x\ny", detail: "x\ny" })).toEqual({ summary: "Run: x\\ny", detail: "x\ny" });
  });
});
