// The one display-width cutter behind truncation, hard wrapping, approval summaries and the live region's tail.
import { describe, expect, it } from "vitest";
import { displayWidth, splitAtWidth, tailAtWidth, truncateText, wrapPlain } from "../../lib/render/style.ts";

describe("splitAtWidth and tailAtWidth", () => {
  it("cut by display columns and never inside a character", () => {
    expect(splitAtWidth("abcdef", 4)).toEqual(["abcd", "ef"]);
    // Wide characters take two columns: a third column cannot hold the second one.
    expect(splitAtWidth("日本語", 3)).toEqual(["日", "本語"]);
    // Astral characters (surrogate pairs) stay whole.
    const [head, rest] = splitAtWidth("😀😀x", 3);
    expect(head).toBe("😀");
    expect(rest).toBe("😀x");
    expect(tailAtWidth("日本語", 5)).toBe("本語");
    expect(tailAtWidth("ab😀", 2)).toBe("😀");
  });

  it("keeps one character when asked, so a row cutter always advances", () => {
    expect(splitAtWidth("日本", 1)).toEqual(["", "日本"]);
    expect(splitAtWidth("日本", 1, true)).toEqual(["日", "本"]);
  });

  it("truncation and hard wrapping stay within their width", () => {
    expect(truncateText("日本語テキスト", 7)).toBe("日本語…");
    for (const row of wrapPlain("x ".repeat(3) + "😀".repeat(30), 21))
      expect(displayWidth(row)).toBeLessThanOrEqual(21);
    expect(wrapPlain("😀".repeat(30), 21).map((row) => row.trimStart()).join("")).toBe("😀".repeat(30));
  });

  it("counts what a terminal draws: wide CJK and emoji two columns, an emoji sequence once", () => {
    expect(displayWidth("日本語")).toBe(6);
    expect(displayWidth("ｆｕｌｌ")).toBe(8);
    expect(displayWidth("👩‍💻")).toBe(2);
    expect(displayWidth("👨‍👩‍👧‍👦")).toBe(2);
    expect(displayWidth("👍🏽")).toBe(2);
    expect(displayWidth("🇯🇵🇫🇷")).toBe(4);
    expect(displayWidth("✅")).toBe(2);
    expect(displayWidth("❤️")).toBe(2);
    expect(displayWidth("e\u0301")).toBe(1);
    expect(displayWidth("\x1b[1mbold\x1b[22m")).toBe(4);
  });
});
