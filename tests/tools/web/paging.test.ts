import { describe, expect, it } from "vitest";
import { completeUtf8Length } from "../../../lib/util/text_bounds.ts";
import { charsetOf, classifyMediaType, mediaType, sniffBody } from "../../../lib/tools/web/content_type.ts";
import { pageByCodePoints } from "../../../lib/tools/web/paging.ts";

describe("pageByCodePoints", () => {
  it("holds whole characters within the byte budget and counts code points", () => {
    const text = "a😀bé😀c";
    expect(pageByCodePoints(text, 0, 5)).toEqual({ start: 0, end: 2, total: 6, text: "a😀" });
    expect(pageByCodePoints(text, 2, 3)).toEqual({ start: 2, end: 4, total: 6, text: "bé" });
    expect(pageByCodePoints(text, 4, 100)).toEqual({ start: 4, end: 6, total: 6, text: "😀c" });
  });

  it("returns at least one character even when the budget is smaller", () => {
    expect(pageByCodePoints("😀😀", 0, 1)).toEqual({ start: 0, end: 1, total: 2, text: "😀" });
  });

  it("clamps an offset past the end", () => {
    expect(pageByCodePoints("abc", 10, 100)).toEqual({ start: 3, end: 3, total: 3, text: "" });
  });
});

describe("content types", () => {
  it("classifies media types per spec", () => {
    expect(mediaType("Text/HTML; charset=UTF-8")).toBe("text/html");
    expect(classifyMediaType("text/html")).toBe("html");
    expect(classifyMediaType("application/xhtml+xml")).toBe("html");
    for (
      const type of [
        "text/plain",
        "text/css",
        "application/ld+json",
        "image/svg+xml",
        "application/json",
        "application/toml",
        "application/x-ndjson",
        "application/graphql",
      ]
    ) {
      expect(classifyMediaType(type), type).toBe("text");
    }
    for (const type of ["application/octet-stream", "image/png", "application/pdf", "application/zip", "video/mp4"]) {
      expect(classifyMediaType(type), type).toBeUndefined();
    }
    expect(charsetOf('text/html; charset="ISO-8859-1"')).toBe("iso-8859-1");
  });

  it("sniffs untyped bodies", () => {
    expect(sniffBody(Buffer.from(`${" ".repeat(1000)}<!DOCTYPE HTML><p>x`))).toBe("html");
    expect(sniffBody(Buffer.from(`${" ".repeat(1030)}<html>`))).toBe("text");
    expect(sniffBody(Buffer.from("plain text é"))).toBe("text");
    expect(sniffBody(Buffer.from("cut é").subarray(0, 5))).toBe("text");
    expect(sniffBody(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]))).toBeUndefined();
  });

  it("finds the end of the last complete UTF-8 character", () => {
    const bytes = Buffer.from("a😀");
    expect(completeUtf8Length(bytes)).toBe(5);
    expect(completeUtf8Length(bytes.subarray(0, 4))).toBe(1);
    expect(completeUtf8Length(bytes.subarray(0, 2))).toBe(1);
    expect(completeUtf8Length(Buffer.from("é").subarray(0, 1))).toBe(0);
  });
});
