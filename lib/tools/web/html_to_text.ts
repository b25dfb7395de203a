// A small, forgiving HTML → readable text converter for web_fetch: drops head, scripts and
// styles, turns block elements into line breaks, decodes entities, wraps at a column width,
// and numbers links (`text[1]`) with the list of targets at the end. It never throws, and its
// work is linear in the input size.

import { decodeEntities } from "./entities.ts";

export type HtmlToTextOptions = {
  /** The page URL, for resolving relative links. */
  baseUrl?: string;
  /** Wrap column (code points). */
  width?: number;
};

const VOID = new Set([
  "area",
  "base",
  "br",
  "col",
  "embed",
  "hr",
  "img",
  "input",
  "link",
  "meta",
  "param",
  "source",
  "track",
  "wbr",
]);
/** Elements whose content is raw text up to the matching end tag. */
const RAW_TEXT = new Set(["script", "style", "title", "textarea", "xmp", "noembed", "noframes"]);
/** Raw-text elements whose content is shown. */
const RAW_TEXT_SHOWN = new Set(["textarea", "xmp"]);
/** Elements dropped with everything inside. */
const DROPPED = new Set([
  "head",
  "noscript",
  "template",
  "svg",
  "math",
  "iframe",
  "object",
  "canvas",
  "select",
  "audio",
  "video",
  "map",
]);
const PARAGRAPH = new Set([
  "p",
  "pre",
  "blockquote",
  "table",
  "ul",
  "ol",
  "dl",
  "hr",
  "figure",
  "h1",
  "h2",
  "h3",
  "h4",
  "h5",
  "h6",
]);
const LINE = new Set([
  "address",
  "article",
  "aside",
  "body",
  "caption",
  "dd",
  "details",
  "dialog",
  "div",
  "dt",
  "fieldset",
  "figcaption",
  "footer",
  "form",
  "header",
  "hgroup",
  "legend",
  "li",
  "main",
  "nav",
  "option",
  "search",
  "section",
  "summary",
  "tbody",
  "thead",
  "tfoot",
  "tr",
  "html",
]);

/** Converts an HTML document to wrapped text with numbered links listed at the end. */
export function htmlToText(html: string, options: HtmlToTextOptions = {}): string {
  const converter = new Converter(options.baseUrl, options.width ?? 120);
  converter.run(html);
  return converter.finish();
}

type ListState = { ordered: boolean; counter: number; indent: string };

class Converter {
  readonly #base: string | undefined;
  readonly #out: TextBuilder;
  readonly #links: string[] = [];
  readonly #linkIndex = new Map<string, number>();
  readonly #suppressed: string[] = [];
  readonly #lists: ListState[] = [];
  readonly #anchors: Array<number | undefined> = [];
  #pre = 0;
  #preJustOpened = false;
  #cell = 0;

  constructor(base: string | undefined, width: number) {
    this.#base = base;
    this.#out = new TextBuilder(width);
  }

  run(html: string): void {
    const scanner = new TagEndScanner(html);
    let i = 0;
    while (i < html.length) {
      const lt = html.indexOf("<", i);
      if (lt < 0) {
        this.#text(html.slice(i));
        break;
      }
      if (lt > i) this.#text(html.slice(i, lt));
      if (html.startsWith("<!--", lt)) {
        const end = html.indexOf("-->", lt + 4);
        i = end < 0 ? html.length : end + 3;
        continue;
      }
      const next = html[lt + 1];
      if (next === "!" || next === "?") {
        const end = scanner.plainEnd(lt);
        i = end < 0 ? html.length : end + 1;
        continue;
      }
      const closing = next === "/";
      const nameStart = closing ? lt + 2 : lt + 1;
      if (!isAsciiLetter(html.charCodeAt(nameStart))) {
        this.#text("<");
        i = lt + 1;
        continue;
      }
      const end = scanner.tagEnd(nameStart);
      if (end < 0) {
        // No tag can close: the rest is text.
        this.#text(html.slice(lt));
        break;
      }
      const inner = html.slice(nameStart, end);
      i = end + 1;
      const name = /^[A-Za-z][A-Za-z0-9:-]*/.exec(inner)![0].toLowerCase();
      if (closing) {
        this.#endTag(name);
        continue;
      }
      const selfClosing = inner.endsWith("/");
      this.#startTag(name, inner.slice(name.length), selfClosing);
      if (RAW_TEXT.has(name) && !selfClosing) {
        const pattern = new RegExp(`</${name}[\\s/>]`, "gi");
        pattern.lastIndex = i;
        const match = pattern.exec(html);
        const contentEnd = match === null ? html.length : match.index;
        if (RAW_TEXT_SHOWN.has(name) && this.#suppressed.length === 0) {
          this.#pre += 1;
          this.#text(html.slice(i, contentEnd));
          this.#pre -= 1;
        }
        if (match === null) break;
        const close = scanner.plainEnd(contentEnd);
        i = close < 0 ? html.length : close + 1;
      }
    }
  }

  finish(): string {
    const body = this.#out.finish();
    if (this.#links.length === 0) return body;
    const list = this.#links.map((url, index) => `[${index + 1}] ${url}`).join("\n");
    return body === "" ? `Links:\n${list}` : `${body}\n\nLinks:\n${list}`;
  }

  #startTag(name: string, attributes: string, selfClosing: boolean): void {
    if (this.#suppressed.length > 0) {
      if (name === "body" && this.#suppressed[0] === "head") this.#suppressed.length = 0;
      else if (name === this.#suppressed.at(-1) && !selfClosing) this.#suppressed.push(name);
      return;
    }
    if (DROPPED.has(name)) {
      if (!selfClosing && !VOID.has(name)) this.#suppressed.push(name);
      return;
    }
    const out = this.#out;
    if (PARAGRAPH.has(name)) out.requestBreak(2);
    else if (LINE.has(name)) out.requestBreak(1);
    switch (name) {
      case "br":
        out.hardBreak();
        break;
      case "hr":
        out.word("---", false);
        out.requestBreak(2);
        break;
      case "pre":
        this.#pre += 1;
        this.#preJustOpened = true;
        break;
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        out.word(`${"#".repeat(Number(name[1]))}`, false);
        out.space();
        break;
      case "ul":
      case "ol":
        this.#lists.push({ ordered: name === "ol", counter: 0, indent: out.indent });
        break;
      case "li": {
        const list = this.#lists.at(-1);
        const depth = Math.max(0, this.#lists.length - 1);
        let marker = "-";
        if (list !== undefined) {
          list.counter += 1;
          if (list.ordered) marker = `${list.counter}.`;
        }
        const lead = `${"  ".repeat(depth)}${marker} `;
        out.setLinePrefix(lead, " ".repeat(lead.length));
        break;
      }
      case "tr":
        this.#cell = 0;
        break;
      case "td":
      case "th":
        if (this.#cell > 0) {
          out.word("|", true);
          out.space();
        }
        this.#cell += 1;
        break;
      case "a": {
        const href = attribute(attributes, "href");
        this.#anchors.push(href === undefined ? undefined : this.#linkNumber(href));
        break;
      }
      case "img": {
        if (this.#anchors.some((anchor) => anchor !== undefined)) {
          const alt = attribute(attributes, "alt")?.trim();
          if (alt) this.#text(alt);
        }
        break;
      }
    }
  }

  #endTag(name: string): void {
    if (this.#suppressed.length > 0) {
      if (name === this.#suppressed.at(-1)) this.#suppressed.pop();
      return;
    }
    const out = this.#out;
    switch (name) {
      case "pre":
        this.#pre = Math.max(0, this.#pre - 1);
        break;
      case "ul":
      case "ol": {
        const list = this.#lists.pop();
        if (list !== undefined) out.setIndent(list.indent);
        break;
      }
      case "li": {
        const list = this.#lists.at(-1);
        out.setIndent(list?.indent ?? "");
        break;
      }
      case "a": {
        const number = this.#anchors.pop();
        if (number !== undefined) out.marker(`[${number}]`);
        break;
      }
    }
    if (PARAGRAPH.has(name)) out.requestBreak(2);
    else if (LINE.has(name)) out.requestBreak(1);
  }

  #text(raw: string): void {
    if (this.#suppressed.length > 0 || raw === "") return;
    let text = decodeEntities(raw);
    if (this.#pre > 0) {
      if (this.#preJustOpened && text.startsWith("\n")) text = text.slice(1);
      this.#preJustOpened = false;
      this.#out.preformatted(text);
      return;
    }
    this.#preJustOpened = false;
    this.#out.flow(text);
  }

  #linkNumber(rawHref: string): number | undefined {
    const href = decodeEntities(rawHref).trim();
    if (href === "" || href.startsWith("#")) return undefined;
    let url: URL;
    try {
      url = this.#base === undefined ? new URL(href) : new URL(href, this.#base);
    } catch {
      return undefined;
    }
    if (url.protocol === "javascript:" || url.protocol === "data:") return undefined;
    const key = url.href;
    const known = this.#linkIndex.get(key);
    if (known !== undefined) return known;
    this.#links.push(key);
    this.#linkIndex.set(key, this.#links.length);
    return this.#links.length;
  }
}

/** Accumulates wrapped lines; breaks are requested and applied lazily before the next text. */
class TextBuilder {
  readonly #width: number;
  readonly #lines: string[] = [];
  #line = "";
  #lineWidth = 0;
  #hasText = false;
  #pendingBreak = 0;
  #pendingSpace = false;
  /** Prefix of the next line that starts (a list marker), and the continuation indent. */
  #firstPrefix: string | undefined;
  indent = "";

  constructor(width: number) {
    this.#width = Math.max(20, width);
  }

  requestBreak(count: 1 | 2): void {
    if (this.#hasText || this.#lines.length > 0) this.#pendingBreak = Math.max(this.#pendingBreak, count);
    this.#pendingSpace = false;
  }

  hardBreak(): void {
    this.#applyBreak();
    this.#pushLine();
    this.#pendingSpace = false;
  }

  setLinePrefix(first: string, continuation: string): void {
    this.#firstPrefix = first;
    this.indent = continuation;
  }

  setIndent(indent: string): void {
    this.indent = indent;
    this.#firstPrefix = undefined;
  }

  space(): void {
    if (this.#hasText) this.#pendingSpace = true;
  }

  /** Flowing text: whitespace collapses, words wrap. */
  flow(text: string): void {
    const parts = text.split(/[ \t\n\r\f]+/);
    for (let index = 0; index < parts.length; index += 1) {
      if (index > 0) this.space();
      const part = parts[index]!;
      if (part !== "") this.word(part, this.#pendingSpace);
    }
  }

  word(word: string, spaceBefore: boolean): void {
    this.#applyBreak();
    const width = codePointLength(word);
    if (!this.#hasText) {
      this.#startLine();
      this.#append(word, width);
    } else if (spaceBefore) {
      if (this.#lineWidth + 1 + width > this.#width && this.#lineWidth > codePointLength(this.indent)) {
        this.#pushLine();
        this.#line = this.indent;
        this.#lineWidth = codePointLength(this.indent);
        this.#hasText = true;
        this.#append(word, width);
      } else {
        this.#append(` ${word}`, width + 1);
      }
    } else {
      this.#append(word, width);
    }
    this.#pendingSpace = false;
  }

  /** Text glued to the previous word (a link number); a pending space stays pending. */
  marker(text: string): void {
    const pending = this.#pendingSpace;
    this.word(text, false);
    this.#pendingSpace = pending;
  }

  /** Preformatted text: kept as is, line by line. */
  preformatted(text: string): void {
    const lines = text.replace(/\r\n?/g, "\n").split("\n");
    for (let index = 0; index < lines.length; index += 1) {
      if (index > 0) {
        this.#applyBreak();
        if (!this.#hasText) this.#startLine();
        this.#pushLine();
      }
      const segment = lines[index]!;
      if (segment === "") continue;
      this.#applyBreak();
      if (!this.#hasText) this.#startLine();
      this.#append(segment, codePointLength(segment));
    }
    this.#pendingSpace = false;
  }

  finish(): string {
    if (this.#hasText) this.#pushLine();
    while (this.#lines.length > 0 && this.#lines.at(-1) === "") this.#lines.pop();
    let first = 0;
    while (first < this.#lines.length && this.#lines[first] === "") first += 1;
    return this.#lines.slice(first).join("\n").replace(/\u00a0/g, " ").replace(/\u00ad/g, "");
  }

  #startLine(): void {
    const prefix = this.#firstPrefix ?? this.indent;
    this.#firstPrefix = undefined;
    this.#line = prefix;
    this.#lineWidth = codePointLength(prefix);
    this.#hasText = true;
  }

  #append(text: string, width: number): void {
    this.#line += text;
    this.#lineWidth += width;
  }

  #applyBreak(): void {
    if (this.#pendingBreak === 0) return;
    if (this.#hasText) this.#pushLine();
    if (this.#pendingBreak === 2 && this.#lines.length > 0 && this.#lines.at(-1) !== "") this.#lines.push("");
    this.#pendingBreak = 0;
  }

  #pushLine(): void {
    this.#lines.push(this.#line.trimEnd());
    this.#line = "";
    this.#lineWidth = 0;
    this.#hasText = false;
  }
}

/** Finds tag ends, honouring quoted attribute values within a bounded, linear total budget. */
class TagEndScanner {
  readonly #html: string;
  #budget: number;
  #cachedGt = -2;
  #cachedFrom = -1;

  constructor(html: string) {
    this.#html = html;
    this.#budget = html.length * 4 + 4096;
  }

  /** The first `>` at or after `from`, or -1. */
  plainEnd(from: number): number {
    if (this.#cachedGt === -1 && from >= this.#cachedFrom) return -1;
    if (this.#cachedGt >= from && from >= this.#cachedFrom) return this.#cachedGt;
    this.#cachedFrom = from;
    this.#cachedGt = this.#html.indexOf(">", from);
    return this.#cachedGt;
  }

  /** The `>` ending the tag whose name starts at `from`, or -1 when there is none. */
  tagEnd(from: number): number {
    const html = this.#html;
    const limit = Math.min(html.length, from + 8192);
    let quote = 0;
    let afterEquals = false;
    let j = from;
    for (; j < limit && this.#budget > 0; j += 1, this.#budget -= 1) {
      const code = html.charCodeAt(j);
      if (quote !== 0) {
        if (code === quote) quote = 0;
        continue;
      }
      if (code === 0x3e) return j; // >
      if ((code === 0x22 || code === 0x27) && afterEquals) {
        quote = code;
        afterEquals = false;
        continue;
      }
      if (code === 0x3d) afterEquals = true; // =
      else if (code !== 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d && code !== 0x0c) afterEquals = false;
    }
    return this.plainEnd(from);
  }
}

function attribute(attributes: string, name: string): string | undefined {
  const pattern = /([^\s"'=<>\/]+)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+)))?/g;
  for (const match of attributes.matchAll(pattern)) {
    if (match[1]!.toLowerCase() === name) return match[2] ?? match[3] ?? match[4] ?? "";
  }
  return undefined;
}

function isAsciiLetter(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

export function codePointLength(text: string): number {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code >= 0xd800 && code <= 0xdbff && index + 1 < text.length) {
      const next = text.charCodeAt(index + 1);
      if (next >= 0xdc00 && next <= 0xdfff) index += 1;
    }
    count += 1;
  }
  return count;
}
