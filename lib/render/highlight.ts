// A small syntax highlighter for fenced code: keywords, strings, comments, numbers, types and constants for
// TypeScript/JavaScript, Python, Rust, Go, shell, JSON, C-like languages, and diff lines. It is fed one line
// at a time and carries block comments and multi-line strings from line to line, like the Markdown renderer.

export type TokenKind =
  | "plain"
  | "keyword"
  | "string"
  | "comment"
  | "number"
  | "type"
  | "constant"
  | "key"
  | "variable"
  | "added"
  | "removed"
  | "hunk"
  | "header";

export type Token = { text: string; kind: TokenKind };

type Grammar = {
  keywords: ReadonlySet<string>;
  constants: ReadonlySet<string>;
  types: ReadonlySet<string>;
  lineComments: readonly string[];
  blockComment?: readonly [string, string];
  /** String delimiters, longest first; those in `multiline` may span lines. */
  quotes: readonly string[];
  multiline: ReadonlySet<string>;
  /** Identifiers starting with a capital letter are types (Rust, Go, TypeScript). */
  capitalTypes: boolean;
  /** `$NAME`, `${…}` and `$1` are variables (shell). */
  variables: boolean;
  /** A string directly followed by `:` is an object key (JSON). */
  keys: boolean;
};

const words = (text: string): ReadonlySet<string> => new Set(text.split(/\s+/).filter((word) => word !== ""));

const JS_KEYWORDS = words(`
  abstract as async await break case catch class const continue debugger declare default delete do else enum
  export extends finally for from function get if implements import in instanceof interface keyof let namespace
  new of private protected public readonly return satisfies set static super switch this throw try type typeof
  var void while with yield`);
const JS_TYPES = words("any bigint boolean never number object string symbol unknown");
const JS_CONSTANTS = words("true false null undefined NaN Infinity");

const PYTHON_KEYWORDS = words(`
  and as assert async await break class continue def del elif else except finally for from global if import in
  is lambda match case nonlocal not or pass raise return try while with yield`);
const PYTHON_TYPES = words("int float str bytes bool list dict set tuple object type");
const PYTHON_CONSTANTS = words("True False None self cls");

const RUST_KEYWORDS = words(`
  as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub
  ref return static struct super trait type unsafe use where while`);
const RUST_TYPES = words("i8 i16 i32 i64 i128 isize u8 u16 u32 u64 u128 usize f32 f64 bool char str");
const RUST_CONSTANTS = words("true false self Self None Some Ok Err");

const GO_KEYWORDS = words(`
  break case chan const continue default defer else fallthrough for func go goto if import interface map package
  range return select struct switch type var`);
const GO_TYPES = words(`
  bool byte complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16
  uint32 uint64 uintptr any`);
const GO_CONSTANTS = words("true false nil iota");

const SHELL_KEYWORDS = words(`
  if then else elif fi for while until do done case esac in function return local export readonly declare set
  unset shift source exit break continue`);

const C_KEYWORDS = words(`
  auto break case catch class const constexpr continue default delete do else enum extern final finally for friend
  goto if import inline namespace new override package private protected public return sizeof static struct switch
  template this throw throws try typedef typename union using virtual volatile while`);
const C_TYPES = words("void char short int long float double signed unsigned bool boolean byte size_t String");
const C_CONSTANTS = words("true false null nullptr NULL");

const NONE: ReadonlySet<string> = new Set();

const base = {
  constants: NONE,
  types: NONE,
  multiline: NONE,
  capitalTypes: false,
  variables: false,
  keys: false,
};

const JS: Grammar = {
  ...base,
  keywords: JS_KEYWORDS,
  types: JS_TYPES,
  constants: JS_CONSTANTS,
  lineComments: ["//"],
  blockComment: ["/*", "*/"],
  quotes: ['"', "'", "`"],
  multiline: new Set(["`"]),
  capitalTypes: true,
};

const GRAMMARS: Record<string, Grammar> = {
  js: JS,
  python: {
    ...base,
    keywords: PYTHON_KEYWORDS,
    types: PYTHON_TYPES,
    constants: PYTHON_CONSTANTS,
    lineComments: ["#"],
    quotes: ['"""', "'''", '"', "'"],
    multiline: new Set(['"""', "'''"]),
  },
  rust: {
    ...base,
    keywords: RUST_KEYWORDS,
    types: RUST_TYPES,
    constants: RUST_CONSTANTS,
    lineComments: ["//"],
    blockComment: ["/*", "*/"],
    // Single quotes are lifetimes ('a) as often as characters: not strings here.
    quotes: ['"'],
    multiline: new Set(['"']),
    capitalTypes: true,
  },
  go: {
    ...base,
    keywords: GO_KEYWORDS,
    types: GO_TYPES,
    constants: GO_CONSTANTS,
    lineComments: ["//"],
    blockComment: ["/*", "*/"],
    quotes: ['"', "`", "'"],
    multiline: new Set(["`"]),
    capitalTypes: true,
  },
  shell: {
    ...base,
    keywords: SHELL_KEYWORDS,
    constants: words("true false"),
    lineComments: ["#"],
    quotes: ['"', "'"],
    multiline: new Set(['"', "'"]),
    variables: true,
  },
  json: {
    ...base,
    keywords: NONE,
    constants: words("true false null"),
    lineComments: [],
    quotes: ['"'],
    keys: true,
  },
  c: {
    ...base,
    keywords: C_KEYWORDS,
    types: C_TYPES,
    constants: C_CONSTANTS,
    lineComments: ["//"],
    blockComment: ["/*", "*/"],
    quotes: ['"', "'"],
    capitalTypes: true,
  },
};

const ALIASES: Record<string, string> = {
  ts: "js",
  tsx: "js",
  typescript: "js",
  javascript: "js",
  jsx: "js",
  mjs: "js",
  cjs: "js",
  mts: "js",
  py: "python",
  python3: "python",
  rs: "rust",
  golang: "go",
  sh: "shell",
  bash: "shell",
  zsh: "shell",
  console: "shell",
  shellsession: "shell",
  jsonc: "json",
  json5: "json",
  java: "c",
  cpp: "c",
  "c++": "c",
  h: "c",
  hpp: "c",
  cs: "c",
  csharp: "c",
  kotlin: "c",
  swift: "c",
};

export interface LineHighlighter {
  /** Tokens of one line; `advance` false leaves the state as it was (a preview of an unfinished line). */
  line(text: string, advance?: boolean): Token[];
}

/** A highlighter for a fence's info string (`ts`, `Python`, `diff` …) (undefined for a language it does not know). */
export function highlighterFor(language: string): LineHighlighter | undefined {
  const name = language.toLowerCase();
  if (name === "diff" || name === "patch" || name === "udiff") return new DiffHighlighter();
  const grammar = GRAMMARS[name] ?? GRAMMARS[ALIASES[name] ?? ""];
  return grammar ? new CodeHighlighter(grammar) : undefined;
}

class DiffHighlighter implements LineHighlighter {
  line(text: string): Token[] {
    const kind: TokenKind = text.startsWith("+++ ") || text.startsWith("--- ") || text.startsWith("diff ")
      ? "header"
      : text.startsWith("@@")
      ? "hunk"
      : text.startsWith("+")
      ? "added"
      : text.startsWith("-")
      ? "removed"
      : text.startsWith("\\")
      ? "comment"
      : "plain";
    return text === "" ? [] : [{ text, kind }];
  }
}

/** What is still open at the end of a line: a block comment or a multi-line string, and what ends it. */
type Open = { end: string; kind: "comment" | "string" };

const NUMBER = /^(?:0[xX][\da-fA-F_]+|0[bB][01_]+|0[oO][0-7_]+|\d[\d_]*(?:\.\d[\d_]*)?(?:[eE][+-]?\d+)?)[a-zA-Z\d_]*/;
const IDENTIFIER = /^[A-Za-z_$][\w$]*/;
const SHELL_VARIABLE = /^\$(?:\{[^}]*\}|[A-Za-z_]\w*|[@*#?$!0-9-])/;

class CodeHighlighter implements LineHighlighter {
  readonly #grammar: Grammar;
  #open: Open | undefined;

  constructor(grammar: Grammar) {
    this.#grammar = grammar;
  }

  line(text: string, advance = true): Token[] {
    const g = this.#grammar;
    const tokens: Token[] = [];
    const push = (part: string, kind: TokenKind) => {
      if (part === "") return;
      const last = tokens.at(-1);
      if (last && last.kind === kind) last.text += part;
      else tokens.push({ text: part, kind });
    };
    let open = this.#open;
    let i = 0;
    while (i < text.length) {
      if (open) {
        const end = findEnd(text, i, open.end, open.kind === "string");
        if (end < 0) {
          push(text.slice(i), open.kind);
          i = text.length;
          break;
        }
        push(text.slice(i, end + open.end.length), open.kind);
        i = end + open.end.length;
        open = undefined;
        continue;
      }
      const rest = text.slice(i);
      const char = text[i]!;
      if (char === " " || char === "\t") {
        const run = /^[ \t]+/.exec(rest)![0];
        push(run, "plain");
        i += run.length;
        continue;
      }
      const lineComment = g.lineComments.find((marker) => rest.startsWith(marker));
      // A shell `#` starts a comment only at the start of a word (`${#x}` and `a#b` are not comments).
      if (lineComment && (!g.variables || i === 0 || /\s/.test(text[i - 1]!))) {
        push(rest, "comment");
        break;
      }
      if (g.blockComment && rest.startsWith(g.blockComment[0])) {
        push(g.blockComment[0], "comment");
        i += g.blockComment[0].length;
        open = { end: g.blockComment[1], kind: "comment" };
        continue;
      }
      const quote = g.quotes.find((q) => rest.startsWith(q));
      if (quote) {
        const end = findEnd(text, i + quote.length, quote, true);
        if (end >= 0) {
          const stop = end + quote.length;
          push(text.slice(i, stop), g.keys && /^\s*:/.test(text.slice(stop)) ? "key" : "string");
          i = stop;
        } else {
          push(rest, "string");
          i = text.length;
          if (g.multiline.has(quote)) open = { end: quote, kind: "string" };
        }
        continue;
      }
      if (g.variables) {
        const variable = SHELL_VARIABLE.exec(rest);
        if (variable) {
          push(variable[0], "variable");
          i += variable[0].length;
          continue;
        }
      }
      const previous = i > 0 ? text[i - 1]! : " ";
      if (/\d/.test(char) && !/[\w$.]/.test(previous)) {
        const number = NUMBER.exec(rest)![0];
        push(number, "number");
        i += number.length;
        continue;
      }
      const identifier = IDENTIFIER.exec(rest);
      if (identifier && !(g.variables && identifier[0].startsWith("$"))) {
        const word = identifier[0];
        // A property (`x.type`) or a shell option word (`--if`) is no keyword.
        const member = previous === "." || (g.variables && previous === "-");
        const kind: TokenKind = member
          ? "plain"
          : g.keywords.has(word)
          ? "keyword"
          : g.constants.has(word)
          ? "constant"
          : g.types.has(word) || (g.capitalTypes && /^[A-Z][a-z]/.test(word))
          ? "type"
          : "plain";
        push(word, kind);
        i += word.length;
        continue;
      }
      push(char, "plain");
      i += 1;
    }
    if (advance) this.#open = open;
    return tokens;
  }
}

/** Index of `end` in `text` from `from`, skipping backslash escapes inside strings; -1 when absent. */
function findEnd(text: string, from: number, end: string, escapes: boolean): number {
  for (let i = from; i <= text.length - end.length; i += 1) {
    if (escapes && text[i] === "\\") {
      i += 1;
      continue;
    }
    if (text.startsWith(end, i)) return i;
  }
  return -1;
}
