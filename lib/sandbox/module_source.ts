// Turns a cell's ES-module source into script source that runs inside an async function
// (host spec §7.1: `export` is allowed and ignored, a static `import` fails the cell).
// Every removed character is replaced by a space, so lines and columns stay where they were.

export interface ModuleSource {
  /** The source with top-level `import`/`export` syntax blanked out. */
  code: string;
  /** The specifier of the first static import (`import … from 'x'`, `export … from 'x'`), if any. */
  firstImport: string | null;
}

/** Keywords after which a `/` starts a regular expression rather than a division. */
const REGEX_AFTER_WORD = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
]);

interface Token {
  kind: "word" | "string" | "punct" | "template" | "regex" | "number";
  start: number;
  end: number;
  value: string;
  depth: number;
  /** A `)` that closes the head of `if`, `while`, `for` or `with`: a statement, maybe a regex, follows. */
  closesHead?: boolean;
}

/** Keywords whose parenthesized head is followed by a statement. */
const HEAD_KEYWORDS = new Set(["if", "while", "for", "with"]);

/** A tolerant tokenizer: enough to find top-level statements, never throws. */
function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  // Brace stack: "{" for a block or expression brace, "`" for a template substitution, "(" for a
  // parenthesis ("h" for the head of `if`, `while`, `for` or `with`), "[" for a bracket.
  const stack: string[] = [];
  let i = 0;
  const n = source.length;
  const last = (): Token | undefined => tokens[tokens.length - 1];
  const regexAllowed = (): boolean => {
    const t = last();
    if (t === undefined) return true;
    if (t.kind === "word") return REGEX_AFTER_WORD.has(t.value);
    if (t.kind === "number" || t.kind === "string" || t.kind === "template" || t.kind === "regex") return false;
    if (t.value === ")") return t.closesHead === true;
    return t.value !== "]";
  };
  const scanTemplate = (from: number): number => {
    // From just after "`" or "}", to just after the closing "`" or an opening "${".
    let j = from;
    while (j < n) {
      const c = source[j]!;
      if (c === "\\") j += 2;
      else if (c === "`") return j + 1;
      else if (c === "$" && source[j + 1] === "{") {
        stack.push("`");
        return j + 2;
      } else j++;
    }
    return n;
  };
  while (i < n) {
    const c = source[i]!;
    const depth = stack.length;
    if (c === " " || c === "\t" || c === "\n" || c === "\r" || c === "\u2028" || c === "\u2029" || c === "\ufeff") {
      i++;
    } else if (c === "/" && source[i + 1] === "/") {
      while (i < n && source[i] !== "\n") i++;
    } else if (c === "/" && source[i + 1] === "*") {
      const close = source.indexOf("*/", i + 2);
      i = close < 0 ? n : close + 2;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < n && source[j] !== c && source[j] !== "\n") j += source[j] === "\\" ? 2 : 1;
      tokens.push({ kind: "string", start: i, end: j + 1, value: source.slice(i + 1, j), depth });
      i = j + 1;
    } else if (c === "`") {
      const end = scanTemplate(i + 1);
      tokens.push({ kind: "template", start: i, end, value: "`", depth });
      i = end;
    } else if (c === "}" && stack[stack.length - 1] === "`") {
      stack.pop();
      const end = scanTemplate(i + 1);
      tokens.push({ kind: "template", start: i, end, value: "}`", depth: stack.length });
      i = end;
    } else if (c === "/" && regexAllowed()) {
      let j = i + 1;
      let inClass = false;
      while (j < n && source[j] !== "\n") {
        const d = source[j]!;
        if (d === "\\") j++;
        else if (d === "[") inClass = true;
        else if (d === "]") inClass = false;
        else if (d === "/" && !inClass) break;
        j++;
      }
      j++;
      while (j < n && /[\w$]/.test(source[j]!)) j++;
      tokens.push({ kind: "regex", start: i, end: j, value: source.slice(i, j), depth });
      i = j;
    } else if (/[A-Za-z_$\u0080-\uffff\\]/.test(c)) {
      let j = i + 1;
      while (j < n && /[\w$\u0080-\uffff\\]/.test(source[j]!)) j++;
      tokens.push({ kind: "word", start: i, end: j, value: source.slice(i, j), depth });
      i = j;
    } else if (/[0-9]/.test(c) || (c === "." && /[0-9]/.test(source[i + 1] ?? ""))) {
      let j = i + 1;
      while (j < n && /[\w.]/.test(source[j]!)) j++;
      tokens.push({ kind: "number", start: i, end: j, value: source.slice(i, j), depth });
      i = j;
    } else {
      let closesHead = false;
      if (c === "(") {
        const before = last();
        stack.push(before?.kind === "word" && HEAD_KEYWORDS.has(before.value) ? "h" : "(");
      } else if (c === "{" || c === "[") {
        stack.push(c);
      } else if ((c === "}" || c === ")" || c === "]") && stack.length > 0) {
        closesHead = stack.pop() === "h";
      }
      const closing = c === "}" || c === ")" || c === "]";
      tokens.push({ kind: "punct", start: i, end: i + 1, value: c, depth: closing ? stack.length : depth, closesHead });
      i++;
    }
  }
  return tokens;
}

export function moduleSource(source: string): ModuleSource {
  const tokens = tokenize(source);
  const blanks: [number, number][] = [];
  const replacements: [number, string][] = [];
  let firstImport: string | null = null;
  const noteImport = (specifier: string): void => {
    if (firstImport === null) firstImport = specifier;
  };
  /** Index of the token after an optional `with { … }` / `assert { … }` clause and `;`. */
  const skipAttributes = (k: number): number => {
    const t = tokens[k];
    if (t?.kind === "word" && (t.value === "with" || t.value === "assert") && tokens[k + 1]?.value === "{") {
      let j = k + 2;
      while (j < tokens.length && !(tokens[j]!.value === "}" && tokens[j]!.depth === t.depth)) j++;
      k = j + 1;
    }
    return tokens[k]?.value === ";" ? k + 1 : k;
  };
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k]!;
    if (t.kind !== "word" || t.depth !== 0 || (t.value !== "import" && t.value !== "export")) continue;
    const previous = tokens[k - 1];
    if (previous !== undefined && previous.kind === "punct" && (previous.value === "." || previous.value === "?"))
      continue;
    const next = tokens[k + 1];
    if (t.value === "import") {
      if (next === undefined || next.value === "(" || next.value === ".") continue;
      let j = k + 1;
      while (j < tokens.length && tokens[j]!.kind !== "string" && tokens[j]!.value !== ";") j++;
      const specifier = tokens[j];
      if (specifier?.kind !== "string") continue;
      noteImport(specifier.value);
      const end = Math.min(skipAttributes(j + 1), tokens.length);
      blanks.push([t.start, tokens[end - 1]!.end]);
      k = end - 1;
      continue;
    }
    // export …
    if (next === undefined) continue;
    if (next.value === "*" || next.value === "{") {
      let j = k + 1;
      if (next.value === "{") {
        while (j < tokens.length && !(tokens[j]!.value === "}" && tokens[j]!.depth === 0)) j++;
      } else {
        while (j < tokens.length && tokens[j]!.value !== "from" && tokens[j]!.value !== ";") j++;
        j--;
      }
      const from = tokens[j + 1];
      if (from?.kind === "word" && from.value === "from" && tokens[j + 2]?.kind === "string") {
        noteImport(tokens[j + 2]!.value);
        const end = Math.min(skipAttributes(j + 3), tokens.length);
        blanks.push([t.start, tokens[end - 1]!.end]);
        k = end - 1;
      } else {
        const end = tokens[j + 1]?.value === ";" ? j + 2 : j + 1;
        blanks.push([t.start, tokens[Math.min(end, tokens.length) - 1]!.end]);
        k = end - 1;
      }
      continue;
    }
    if (next.kind === "word" && next.value === "default") {
      const after = tokens[k + 2];
      const declaration = after?.kind === "word" &&
        (after.value === "function" || after.value === "class" || after.value === "async") &&
        tokens[after.value === "async" ? k + 4 : k + 3]?.kind === "word";
      if (declaration) blanks.push([t.start, next.end]);
      else {
        blanks.push([t.start, next.end]);
        replacements.push([t.start, "void"]);
      }
      k++;
      continue;
    }
    blanks.push([t.start, t.end]);
  }
  if (blanks.length === 0 && replacements.length === 0) return { code: source, firstImport };
  const chars = source.split("");
  // Token ends may lie past the end of an unterminated string or regex.
  for (const [start, end] of blanks) {
    for (let p = start; p < Math.min(end, chars.length); p++)
      if (chars[p] !== "\n" && chars[p] !== "\r") chars[p] = " ";
  }
  for (const [at, text] of replacements) for (let p = 0; p < text.length; p++) chars[at + p] = text[p]!;
  return { code: chars.join(""), firstImport };
}
