// A lenient reader of Bash command lines for permission rules: it finds every simple command a line runs (the
// parts of `&&`, `||`, `;`, `|`, `&` and newlines, subshells and groups, and the commands inside `$(…)`, backticks,
// `<(…)`, `bash -c '…'` and `eval`) and says of each whether it is plain: only its words, nothing that a rule's
// words cannot see. It never refuses a line: deny and ask rules must find `rm` in whatever the model writes, while
// allow rules only ever match plain parts. It is not a shell; what it cannot see (a command built at run time,
// `find -exec`) no rule can match, which is why the sandbox, not rules, is the boundary for commands.

export type SplitPart = {
  words: string[];
  core: string[];
  plain: boolean;
  expanding: number[];
};

type Word = { text: string; expanding: boolean; quotedFrom: number };

const KEYWORDS = new Set([
  "if",
  "then",
  "else",
  "elif",
  "fi",
  "do",
  "done",
  "while",
  "until",
  "for",
  "in",
  "case",
  "esac",
  "select",
  "function",
  "time",
  "coproc",
  "!",
  "{",
  "}",
  "[[",
  "]]",
]);

/** Programs that run the rest of their words as a command, with the options that take a value. */
const WRAPPERS: Record<string, { values: readonly string[]; operands?: number }> = {
  sudo: { values: ["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T"] },
  doas: { values: ["-u", "-C"] },
  env: { values: ["-u", "-C", "--unset", "--chdir"] },
  nice: { values: ["-n", "--adjustment"] },
  ionice: { values: ["-c", "-n", "-p", "-t"] },
  nohup: { values: [] },
  command: { values: [] },
  builtin: { values: [] },
  exec: { values: ["-a"] },
  time: { values: ["-f", "-o", "--format", "--output"] },
  timeout: { values: ["-s", "-k", "--signal", "--kill-after"], operands: 1 },
  stdbuf: { values: ["-i", "-o", "-e"] },
  xargs: { values: ["-I", "-L", "-n", "-P", "-d", "-E", "-s", "-a", "--arg-file", "--delimiter", "--max-args"] },
  watch: { values: ["-n", "--interval", "-d"] },
};
const SHELLS = new Set(["bash", "sh", "dash", "zsh", "ksh"]);
const HARMLESS_TARGETS = new Set(["/dev/null"]);
const SPACE = new Set([" ", "\t"]);
const BREAK = new Set([" ", "\t", "\n", "\r", ";", "&", "|", "<", ">", "(", ")"]);
const NAME = /^[A-Za-z_][A-Za-z0-9_]*=/;
/** How deep `bash -c`, `eval` and substitutions may nest before the reader stops looking (and nothing is plain). */
const MAX_DEPTH = 8;

/** Every simple command `line` runs, in the order they appear (inner commands after the part that holds them). */
export function splitCommandLine(line: string): SplitPart[] {
  const out: SplitPart[] = [];
  new Reader(line, out, 0).sequence(0, undefined);
  return out;
}

class Reader {
  #line: string;
  #out: SplitPart[];
  #depth: number;
  // The part being read.
  #words: Word[] = [];
  #plain = true;
  #word: Word | undefined;

  constructor(line: string, out: SplitPart[], depth: number) {
    this.#line = line;
    this.#out = out;
    this.#depth = depth;
  }

  /** Reads parts from `start` until `closer` (unquoted, at this level) or the end; returns the index after it. */
  sequence(start: number, closer: ")" | undefined): number {
    const line = this.#line;
    let index = start;
    while (index < line.length) {
      const char = line[index]!;
      if (closer !== undefined && char === ")") {
        this.#endPart();
        return index + 1;
      }
      if (SPACE.has(char)) {
        this.#endWord();
        index += 1;
      } else if (char === "\n" || char === "\r") {
        this.#endPart();
        index += 1;
      } else if (char === "#" && this.#word === undefined) {
        while (index < line.length && line[index] !== "\n") index += 1;
      } else if (char === ";") {
        this.#endPart();
        index += 1;
      } else if (char === "&" && line[index + 1] !== ">") {
        // `&&` joins; a lone `&` leaves the command running in the background, more than its words say.
        if (line[index + 1] !== "&") this.#plain = false;
        this.#endPart();
        index += line[index + 1] === "&" ? 2 : 1;
      } else if (char === "|") {
        this.#endPart();
        index += line[index + 1] === "|" || line[index + 1] === "&" ? 2 : 1;
      } else if (char === "(") {
        index = this.#subshell(index);
      } else if (char === ")") {
        this.#plain = false;
        this.#endPart();
        index += 1;
      } else if (char === "<" || char === ">" || (char === "&" && line[index + 1] === ">")) {
        index = this.#redirection(index);
      } else {
        index = this.#wordPiece(index);
      }
    }
    this.#endPart();
    return index;
  }

  #current(): Word {
    this.#word ??= { text: "", expanding: false, quotedFrom: Infinity };
    return this.#word;
  }

  #quoted(): void {
    const word = this.#current();
    word.quotedFrom = Math.min(word.quotedFrom, word.text.length);
  }

  #endWord(): void {
    if (this.#word !== undefined) this.#words.push(this.#word);
    this.#word = undefined;
  }

  #endPart(): void {
    this.#endWord();
    if (this.#words.length > 0) this.#out.push(...finishPart(this.#words, this.#plain, this.#depth));
    this.#words = [];
    this.#plain = true;
  }

  /** `( … )` or `foo(`: the commands inside are parts of their own, and none of them is plain. */
  #subshell(index: number): number {
    const before = this.#out.length;
    this.#endPart();
    const inner = new Reader(this.#line, this.#out, this.#depth + 1);
    const end = inner.sequence(index + 1, ")");
    for (let at = before; at < this.#out.length; at += 1) this.#out[at]!.plain = false;
    this.#plain = false;
    return end;
  }

  /** A nested command line (a substitution's): its parts join the output; the part holding it is not plain. */
  #nested(text: string): void {
    this.#plain = false;
    if (this.#depth >= MAX_DEPTH) return;
    const parts = splitNested(text, this.#depth + 1);
    this.#out.push(...parts);
  }

  /** `$(…)` from `index` (at `$`): reads it with a nested reader; returns the index after its `)`. */
  #commandSubstitution(index: number): number {
    this.#plain = false;
    const inner = new Reader(this.#line, this.#out, this.#depth + 1);
    return inner.sequence(index + 2, ")");
  }

  /** One piece of a word at `index`: a quoted string, an escape, an expansion or a plain character. */
  #wordPiece(index: number): number {
    const line = this.#line;
    const char = line[index]!;
    const word = this.#current();
    if (char === "\\") {
      const next = line[index + 1];
      if (next === "\n") return index + 2;
      if (next !== undefined) {
        this.#quoted();
        word.text += next;
      }
      return index + 2;
    }
    if (char === "'") {
      const close = line.indexOf("'", index + 1);
      this.#quoted();
      if (close < 0) {
        this.#plain = false;
        word.text += line.slice(index + 1);
        return line.length;
      }
      word.text += line.slice(index + 1, close);
      return close + 1;
    }
    if (char === '"') return this.#doubleQuoted(index + 1);
    if (char === "$") return this.#dollar(index);
    if (char === "`") return this.#backtick(index);
    if (char === "*" || char === "?" || char === "[" || char === "{") word.expanding = true;
    if (char === "~" && word.text === "") word.expanding = true;
    word.text += char;
    return index + 1;
  }

  #doubleQuoted(start: number): number {
    const line = this.#line;
    this.#quoted();
    const word = this.#current();
    let index = start;
    while (index < line.length) {
      const char = line[index]!;
      if (char === '"') return index + 1;
      if (char === "\\" && index + 1 < line.length && '"\\$`\n'.includes(line[index + 1]!)) {
        if (line[index + 1] !== "\n") word.text += line[index + 1];
        index += 2;
      } else if (char === "$") {
        index = this.#dollar(index);
      } else if (char === "`") {
        index = this.#backtick(index);
      } else {
        word.text += char;
        index += 1;
      }
    }
    this.#plain = false;
    return index;
  }

  /** `$…` at `index`: a substitution, arithmetic, or a parameter expansion; none of them is plain. */
  #dollar(index: number): number {
    const line = this.#line;
    const word = this.#current();
    this.#plain = false;
    if (line[index + 1] === "(" && line[index + 2] === "(") {
      const end = closingIndex(line, index + 1, "(", ")");
      word.text += line.slice(index, end);
      return end;
    }
    if (line[index + 1] === "(") {
      const end = this.#commandSubstitution(index);
      word.text += "$(…)";
      return end;
    }
    if (line[index + 1] === "{") {
      const end = closingIndex(line, index + 1, "{", "}");
      word.text += line.slice(index, end);
      return end;
    }
    word.text += "$";
    return index + 1;
  }

  #backtick(index: number): number {
    const line = this.#line;
    let end = index + 1;
    let inner = "";
    while (end < line.length && line[end] !== "`") {
      if (line[end] === "\\" && end + 1 < line.length) {
        inner += line[end + 1];
        end += 2;
      } else {
        inner += line[end];
        end += 1;
      }
    }
    this.#nested(inner);
    this.#current().text += "`…`";
    return Math.min(end + 1, line.length);
  }

  /** A redirection at `index` (an fd number may already be the current word): only stream joins are plain. */
  #redirection(index: number): number {
    const line = this.#line;
    const fd = this.#word !== undefined && /^\d+$/.test(this.#word.text) && this.#word.quotedFrom === Infinity;
    if (fd) this.#word = undefined;
    else this.#endWord();
    let end = index;
    let operator = "";
    while (end < line.length && "<>&|".includes(line[end]!) && operator.length < 3) {
      if (line[end] === "&" && operator !== "" && operator !== ">" && operator !== "<") break;
      operator += line[end];
      end += 1;
    }
    if (line[end] === "(" && (operator === "<" || operator === ">")) {
      // Process substitution: a command of its own.
      this.#plain = false;
      const inner = new Reader(line, this.#out, this.#depth + 1);
      return inner.sequence(end + 1, ")");
    }
    while (end < line.length && SPACE.has(line[end]!)) end += 1;
    // The target, read as a word of a throwaway reader so quotes and expansions are handled alike.
    const target = new Reader(line, this.#out, this.#depth + 1);
    let after = end;
    while (after < line.length && !BREAK.has(line[after]!)) after = target.#wordPiece(after);
    const text = target.#word?.text ?? "";
    const harmless = ((operator === ">&" || operator === "<&") && /^(\d+|-)$/.test(text)) ||
      ((operator === ">" || operator === ">>" || operator === "&>") && HARMLESS_TARGETS.has(text) &&
        target.#plain);
    if (!harmless) this.#plain = false;
    return after;
  }
}

function splitNested(text: string, depth: number): SplitPart[] {
  const out: SplitPart[] = [];
  new Reader(text, out, depth).sequence(0, undefined);
  for (const part of out) part.plain = false;
  return out;
}

/** The index after the bracket that closes the one at `open` (quotes skipped roughly), or the end of the line. */
function closingIndex(line: string, open: number, opener: string, closer: string): number {
  let depth = 0;
  for (let index = open; index < line.length; index += 1) {
    const char = line[index]!;
    if (char === "\\") index += 1;
    else if (char === "'") {
      const close = line.indexOf("'", index + 1);
      if (close < 0) return line.length;
      index = close;
    } else if (char === opener) depth += 1;
    else if (char === closer) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return line.length;
}

/** The part (and the parts of `bash -c '…'` or `eval …` inside it) from its words. */
function finishPart(raw: Word[], plainSoFar: boolean, depth: number): SplitPart[] {
  let plain = plainSoFar;
  let start = 0;
  // Leading assignments and keywords: they change what runs (GIT_EXTERNAL_DIFF=…, `if`), so the part is not plain.
  while (start < raw.length) {
    const word = raw[start]!;
    const assignment = NAME.test(word.text) && word.text.indexOf("=") < word.quotedFrom;
    const keyword = word.quotedFrom === Infinity && KEYWORDS.has(word.text);
    if (!assignment && !keyword) break;
    plain = false;
    start += 1;
  }
  const words = raw.map((word) => word.text);
  const expanding = raw.flatMap((word, index) => (word.expanding ? [index] : []));
  const core = unwrap(words.slice(start));
  // A part of assignments alone still counts: `PATH=/tmp/x; npm test` changes which npm runs.
  const parts: SplitPart[] = [{ words, core, plain: plain && depth < MAX_DEPTH, expanding }];
  if (depth >= MAX_DEPTH || core.length === 0) return parts;
  const program = core[0]!;
  const script = SHELLS.has(program) ? shellScript(core) : program === "eval" ? core.slice(1).join(" ") : undefined;
  if (script !== undefined) parts.push(...splitNested(script, depth + 1));
  return parts;
}

/** The `-c` script of a shell invocation, or undefined. */
function shellScript(core: readonly string[]): string | undefined {
  for (let index = 1; index < core.length; index += 1) {
    const word = core[index]!;
    if (!word.startsWith("-")) return undefined;
    if (word !== "--" && !word.startsWith("--") && word.slice(1).includes("c")) return core[index + 1];
  }
  return undefined;
}

/** The words a deny rule should see: wrappers and their options removed, the program without its directory. */
function unwrap(words: string[]): string[] {
  let rest = words;
  for (let rounds = 0; rounds < 8 && rest.length > 0; rounds += 1) {
    const program = basename(rest[0]!);
    const wrapper = Object.hasOwn(WRAPPERS, program) ? WRAPPERS[program]! : undefined;
    if (wrapper === undefined) break;
    let index = 1;
    let operands = wrapper.operands ?? 0;
    while (index < rest.length) {
      const word = rest[index]!;
      if (word === "--") {
        index += 1;
        break;
      }
      if (word.startsWith("-") && word.length > 1) {
        index += wrapper.values.includes(word) ? 2 : 1;
      } else if (program === "env" && NAME.test(word)) {
        index += 1;
      } else if (operands > 0) {
        operands -= 1;
        index += 1;
      } else break;
    }
    rest = rest.slice(index);
  }
  if (rest.length === 0) return rest;
  return [basename(rest[0]!), ...rest.slice(1)];
}

function basename(program: string): string {
  const slash = program.lastIndexOf("/");
  return slash >= 0 && slash < program.length - 1 ? program.slice(slash + 1) : program;
}
