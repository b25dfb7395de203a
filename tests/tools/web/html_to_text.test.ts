import { describe, expect, it } from "vitest";
import { decodeEntities } from "../../../lib/tools/web/entities.ts";
import { htmlToText } from "../../../lib/tools/web/html_to_text.ts";

describe("htmlToText", () => {
  it("drops head, scripts and styles and keeps body text", () => {
    const html =
      `<!DOCTYPE html><html><head><title>T</title><style>p{color:red}</style><script>var x = "</p>";</script></head>
      <body><p>Hello <b>bold</b> world</p><script type="module">alert("no")</script><noscript>enable js</noscript></body></html>`;
    expect(htmlToText(html)).toBe("Hello bold world");
  });

  it("turns block elements into lines and paragraphs, and br into a line break", () => {
    const html =
      "<h1>Title</h1><p>First paragraph.</p><div>line one</div><div>line two<br>after break</div><p>Last</p>";
    expect(htmlToText(html)).toBe("# Title\n\nFirst paragraph.\n\nline one\nline two\nafter break\n\nLast");
  });

  it("decodes entities in text and attributes", () => {
    expect(htmlToText("<p>a &amp; b &lt;tag&gt; &#169; &#x1F600; &nbsp;x &unknown; &copy</p>")).toBe(
      "a & b <tag> © 😀  x &unknown; ©",
    );
    expect(decodeEntities("&#0; &#xD800; &#1114112;")).toBe("\ufffd \ufffd \ufffd");
  });

  it("numbers links, resolves them against the page and lists them at the end", () => {
    const html = `<p>See <a href="/docs?a=1&amp;b=2">the docs</a>, <a href='https://other.example/'>other</a> and
      <a href="/docs?a=1&b=2">again</a>. <a href="#top">top</a> <a href="javascript:void(0)">js</a></p>`;
    expect(htmlToText(html, { baseUrl: "https://site.example/page/" })).toBe(
      "See the docs[1], other[2] and again[1]. top js\n\nLinks:\n[1] https://site.example/docs?a=1&b=2\n[2] https://other.example/",
    );
  });

  it("wraps flowing text at 120 columns without breaking words", () => {
    const words = Array.from({ length: 60 }, (_, index) => `word${index}`);
    const text = htmlToText(`<p>${words.join(" ")}</p>`);
    const lines = text.split("\n");
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(120);
    expect(lines.join(" ")).toBe(words.join(" "));
    expect(htmlToText(`<p>${words.join(" ")}</p>`, { width: 40 }).split("\n").every((line) => line.length <= 40)).toBe(
      true,
    );
  });

  it("keeps preformatted text as is", () => {
    const html = '<p>Code:</p><pre>\nfn main() {\n    println!("&lt;hi&gt;");\n}\n</pre><p>after</p>';
    expect(htmlToText(html)).toBe('Code:\n\nfn main() {\n    println!("<hi>");\n}\n\nafter');
  });

  it("renders lists and tables readably", () => {
    const html =
      "<ul><li>one</li><li>two<ol><li>inner</li></ol></li></ul><table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>";
    expect(htmlToText(html)).toBe("- one\n- two\n\n  1. inner\n\na | b\n1 | 2");
  });

  it("survives malformed markup", () => {
    expect(htmlToText("a < b and c > d")).toBe("a < b and c > d");
    expect(htmlToText('<p>unclosed <b>bold <a href="x">link')).toBe("unclosed bold link");
    expect(htmlToText("<div title='a > b'>quoted</div>")).toBe("quoted");
    expect(htmlToText("<!-- comment <p>hidden</p> -->visible")).toBe("visible");
    expect(htmlToText("<p>text <img src=x")).toBe("text <img src=x");
    expect(htmlToText("<script>never closed")).toBe("");
    expect(htmlToText("")).toBe("");
  });

  // That the time stays linear in the input is measured by scripts/bench/latency.ts (scanners.html_to_text).
  it("gets through pathological input", () => {
    const evil = `<a b="${"<a b='".repeat(100_000)}`;
    expect(htmlToText(evil)).toBeTypeOf("string");
    expect(htmlToText("<".repeat(200_000))).toBeTypeOf("string");
    expect(htmlToText("<a ".repeat(100_000))).toBeTypeOf("string");
  });
});
