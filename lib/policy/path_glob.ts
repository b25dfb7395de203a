// Gitignore-style globs relative to the workspace, for path rules: `*` and `?` stay within one component, `**`
// crosses components, `[…]` is a class; a pattern without a `/` (other than a trailing one) matches at any depth,
// one with a `/` is anchored at the workspace root (a leading `/` only anchors). A pattern that matches a folder
// matches everything below it, so `secrets` and `secrets/**` both cover `secrets/a/b.txt`.

export type PathGlob = { pattern: string; test(path: string): boolean };

/** The reason `pattern` is not a usable path glob, or undefined. */
export function pathGlobProblem(pattern: string): string | undefined {
  if (pattern.trim() === "") return "the path pattern is empty";
  if (pattern.includes("\0")) return "the path pattern contains a NUL byte";
  if (pattern.split("/").includes("..")) return "a path pattern cannot use `..`: rules are relative to the workspace";
  if (pattern.startsWith("~") || pattern.startsWith("//")) {
    return "a path pattern is relative to the workspace (tools never reach outside it)";
  }
  let depth = 0;
  for (const char of pattern) {
    if (char === "[") depth += 1;
    if (char === "]") depth = Math.max(0, depth - 1);
  }
  if (depth !== 0) return "the path pattern has an unclosed `[`";
  return undefined;
}

export function compilePathGlob(pattern: string): PathGlob {
  let body = pattern.endsWith("/") ? pattern.slice(0, -1) : pattern;
  const anchored = body.includes("/");
  if (body.startsWith("/")) body = body.slice(1);
  if (body.startsWith("./")) body = body.slice(2);
  // `dir/**` is the folder and everything below it: the folder rule below covers the rest.
  while (body.endsWith("/**") && body.length > 3) body = body.slice(0, -3);
  const source = (anchored ? "^" : "^(?:.*/)?") + translate(body) + "$";
  const regex = new RegExp(source, "s");
  return {
    pattern,
    test(path: string): boolean {
      const normal = normalizePath(path);
      if (regex.test(normal)) return true;
      // A folder that matches covers everything below it.
      for (let slash = normal.indexOf("/"); slash > 0; slash = normal.indexOf("/", slash + 1)) {
        if (regex.test(normal.slice(0, slash))) return true;
      }
      return false;
    },
  };
}

/** `./a//b/` as `a/b`; the workspace itself is `.`. */
export function normalizePath(path: string): string {
  const parts = path.split("/").filter((part) => part !== "" && part !== ".");
  return parts.length === 0 ? "." : parts.join("/");
}

function translate(glob: string): string {
  let out = "";
  for (let index = 0; index < glob.length; index += 1) {
    const char = glob[index]!;
    if (char === "*") {
      if (glob[index + 1] === "*") {
        const atStart = index === 0 || glob[index - 1] === "/";
        const atEnd = index + 2 === glob.length;
        if (atStart && glob[index + 2] === "/") {
          out += "(?:.*/)?";
          index += 2;
        } else if (atStart && atEnd) {
          out += ".*";
          index += 1;
        } else {
          out += "[^/]*";
          index += 1;
        }
      } else {
        out += "[^/]*";
      }
    } else if (char === "?") {
      out += "[^/]";
    } else if (char === "[") {
      const close = glob.indexOf("]", index + 2);
      if (close < 0) {
        out += "\\[";
        continue;
      }
      let inner = glob.slice(index + 1, close);
      const negated = inner.startsWith("!") || inner.startsWith("^");
      if (negated) inner = inner.slice(1);
      out += `[${negated ? "^" : ""}${inner.replace(/[\\\]]/g, "\\$&")}]`;
      index = close;
    } else if (char === "\\" && index + 1 < glob.length) {
      out += escape(glob[index + 1]!);
      index += 1;
    } else {
      out += escape(char);
    }
  }
  return out;
}

function escape(char: string): string {
  return /[.*+?^${}()|[\]\\/]/.test(char) ? `\\${char}` : char;
}
