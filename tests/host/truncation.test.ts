// Host output truncation (host spec §9), pure: the worked examples and the edge rules.
import { describe, expect, it } from "vitest";
import { audioTokens, middleTruncate, truncateItems } from "../../lib/host/truncation.ts";
import type { ContentItem } from "../../lib/sandbox/types.ts";

const D4 = "0123456789012345678901234567890123456789";
const t = (text: string): ContentItem => ({ type: "input_text", text });
const image: ContentItem = { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "high" };

function wav(seconds: number): string {
  const byteRate = 8000;
  const dataSize = seconds * byteRate;
  const buffer = Buffer.alloc(44 + dataSize);
  buffer.write("RIFF", 0, "latin1");
  buffer.writeUInt32LE(36 + dataSize, 4);
  buffer.write("WAVE", 8, "latin1");
  buffer.write("fmt ", 12, "latin1");
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(8000, 24);
  buffer.writeUInt32LE(byteRate, 28);
  buffer.writeUInt16LE(1, 32);
  buffer.writeUInt16LE(8, 34);
  buffer.write("data", 36, "latin1");
  buffer.writeUInt32LE(dataSize, 40);
  return `data:audio/wav;base64,${buffer.toString("base64")}`;
}

describe("truncateItems: the worked examples of host spec §9", () => {
  it("truncates a 40-character text to 5 tokens", () => {
    expect(truncateItems([t(D4)], 5)).toEqual([
      t("Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\n0123456789…5 tokens truncated…0123456789"),
    ]);
  });

  it("truncates an 80-character text to 7 tokens", () => {
    expect(truncateItems([t("0123456789".repeat(8))], 7)).toEqual([
      t("Warning: truncated output (original token count: 20)\nTotal output lines: 1\n\n01234567890123…13 tokens truncated…67890123456789"),
    ]);
  });

  it("joins texts with newlines and keeps the tail marker (budget 30)", () => {
    const out = truncateItems([t("A".repeat(400)), t("B".repeat(400) + " tail-marker")], 30);
    expect(out).toEqual([
      t(
        "Warning: truncated output (original token count: 204)\nTotal output lines: 2\n\n" +
          "A".repeat(60) +
          "…174 tokens truncated…" +
          "B".repeat(48) +
          " tail-marker",
      ),
    ]);
  });

  it("budget 0 leaves only the marker", () => {
    expect(truncateItems([t("abcdefgh"), t("ij")], 0)).toEqual([
      t("Warning: truncated output (original token count: 3)\nTotal output lines: 2\n\n…3 tokens truncated…"),
    ]);
  });

  it("cuts on character boundaries for multi-byte text", () => {
    expect(truncateItems([t("é".repeat(20))], 3)).toEqual([
      t("Warning: truncated output (original token count: 10)\nTotal output lines: 1\n\nééé…7 tokens truncated…ééé"),
    ]);
  });

  it("mixed items: keeps images, truncates one text without header, counts omitted texts", () => {
    expect(truncateItems([t(D4), image, t(D4), t("zz")], 15)).toEqual([
      t(D4),
      image,
      t("0123456789…5 tokens truncated…0123456789"),
      t("[omitted 1 text items ...]"),
    ]);
  });

  it("a bare thrown string within the default budget is unchanged", () => {
    const items = [t("Script error:\nbare")];
    expect(truncateItems(items, 10_000)).toBe(items);
  });
});

describe("truncateItems: other rules", () => {
  it("returns all-text items unchanged, empty ones included, when within budget", () => {
    const items = [t(""), t("abc"), t("")];
    expect(truncateItems(items, 1)).toBe(items);
    expect(truncateItems([], 0)).toEqual([]);
  });

  it("leading empty items add nothing to the joined text and a final newline is not a line", () => {
    const out = truncateItems([t(""), t("abcdefgh\n"), t("ijklmnop")], 1);
    // joined: "abcdefgh\n\nijklmnop" = 18 bytes, 3 lines
    expect(out[0]).toEqual(
      t("Warning: truncated output (original token count: 5)\nTotal output lines: 3\n\nab…4 tokens truncated…op"),
    );
    const trailing = truncateItems([t("abcdefgh\n")], 1);
    expect((trailing[0] as { text: string }).text).toContain("Total output lines: 1\n");
  });

  it("mixed: drops empty texts, keeps audio within budget and counts omitted audio", () => {
    const oneSecond = wav(1);
    expect(audioTokens(oneSecond)).toBe(10);
    const out = truncateItems([t(""), image, { type: "input_audio", audio_url: oneSecond }, t("abcd")], 11);
    expect(out).toEqual([image, { type: "input_audio", audio_url: oneSecond }, t("abcd")]);
    const over = truncateItems([image, { type: "input_audio", audio_url: wav(2) }, t("abcd")], 11);
    expect(over).toEqual([image, t("abcd"), t("[omitted 1 audio items ...]")]);
  });

  it("audio of unknown duration costs its URL length", () => {
    expect(audioTokens("data:audio/mp3;base64,AAAAAAAA")).toBe(Math.ceil("data:audio/mp3;base64,AAAAAAAA".length / 4));
  });

  it("mixed with budget 0 omits every text", () => {
    expect(truncateItems([image, t("a"), t("b")], 0)).toEqual([image, t("[omitted 2 text items ...]")]);
  });
});

describe("middleTruncate", () => {
  it("budget 0 gives the marker alone", () => {
    expect(middleTruncate("abcdefghij", 0)).toBe("…3 tokens truncated…");
  });

  it("never splits a 4-byte character", () => {
    const out = middleTruncate("😀".repeat(10), 3);
    // max 12 bytes: head 6 → one emoji (4 bytes); tail 6 → starts at the first char start ≥ 34 → byte 36.
    expect(out).toBe("😀…7 tokens truncated…😀");
  });
});
