import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { htmlToText } from "../../../lib/tools/web/html_to_text.ts";
import { pageByCodePoints } from "../../../lib/tools/web/paging.ts";
import { isPublicAddress } from "../../../lib/tools/web/ssrf.ts";

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255));
const hex = (high: number, low: number): string => ((high << 8) | low).toString(16);

describe("SSRF guard properties", () => {
  it("judges every embedded IPv4 form exactly as the IPv4 address", () => {
    fc.assert(
      fc.property(ipv4, ([a, b, c, d]) => {
        const dotted = `${a}.${b}.${c}.${d}`;
        const expected = isPublicAddress(dotted);
        expect(isPublicAddress(`::ffff:${dotted}`)).toBe(expected);
        expect(isPublicAddress(`::ffff:${hex(a, b)}:${hex(c, d)}`)).toBe(expected);
        expect(isPublicAddress(`64:ff9b::${hex(a, b)}:${hex(c, d)}`)).toBe(expected);
        expect(isPublicAddress(`2002:${hex(a, b)}:${hex(c, d)}::1`)).toBe(expected);
        // IPv4-compatible; `::` and `::1` are themselves refused, as 0.0.0.0/8 is.
        expect(isPublicAddress(`::${hex(a, b)}:${hex(c, d)}`)).toBe(expected);
      }),
      { numRuns: 500 },
    );
  });
});

describe("htmlToText properties", () => {
  const fragment = fc.oneof(
    fc.string(),
    fc.constantFrom(
      "<p>",
      "</p>",
      "<br>",
      "<a href='/x'>",
      "</a>",
      "<pre>",
      "</pre>",
      "<li>",
      "<ul>",
      "</ul>",
      "<script>",
      "</script>",
      "<!--",
      "-->",
      "&amp;",
      "&#",
      "<",
      ">",
      '"',
      "<td>",
      "<tr>",
      "<h2>",
      "<head>",
      "<body>",
      "\n",
      "  ",
    ),
  );

  it("never throws and wraps flowing text at 120 columns", () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 60 }), (parts) => {
        const text = htmlToText(parts.join(""), { baseUrl: "https://example.com/" });
        expect(typeof text).toBe("string");
      }),
      { numRuns: 300 },
    );
    fc.assert(
      fc.property(fc.array(fc.stringMatching(/^[a-z]{1,15}$/), { maxLength: 200 }), (words) => {
        const text = htmlToText(`<p>${words.join(" ")}</p>`);
        for (const line of text.split("\n")) expect([...line].length).toBeLessThanOrEqual(120);
        expect(text.split(/\s+/).filter(Boolean)).toEqual(words);
      }),
      { numRuns: 200 },
    );
  });
});

describe("paging properties", () => {
  it("pages concatenate back to the text and respect the byte budget", () => {
    fc.assert(
      fc.property(fc.string({ unit: "grapheme", maxLength: 200 }), fc.integer({ min: 1, max: 40 }), (text, budget) => {
        let offset = 0;
        let joined = "";
        const total = [...text].length;
        for (let guard = 0; guard <= total + 1; guard += 1) {
          const page = pageByCodePoints(text, offset, budget);
          expect(page.start).toBe(Math.min(offset, total));
          expect(page.total).toBe(total);
          if (page.end - page.start > 1) expect(Buffer.byteLength(page.text)).toBeLessThanOrEqual(budget);
          joined += page.text;
          if (page.end >= total) break;
          expect(page.end).toBeGreaterThan(offset);
          offset = page.end;
        }
        expect(joined).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});
