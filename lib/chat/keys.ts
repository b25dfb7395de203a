// Raw terminal input bytes → key events. Runs of printable characters stay together (a paste is one event).

export type Key =
  | { name: "text"; text: string }
  | {
    name:
      | "enter"
      | "newline"
      | "backspace"
      | "delete"
      | "left"
      | "right"
      | "up"
      | "down"
      | "home"
      | "end"
      | "ctrl-c"
      | "ctrl-d"
      | "escape"
      | "kill-line-start"
      | "kill-line-end"
      | "kill-word"
      | "redraw"
      | "suspend"
      | "tab"
      | "search-history"
      | "ctrl-g";
  };

const SEQUENCES: Record<string, Key["name"]> = {
  "[A": "up",
  "[B": "down",
  "[C": "right",
  "[D": "left",
  "[H": "home",
  "[F": "end",
  OA: "up",
  OB: "down",
  OC: "right",
  OD: "left",
  OH: "home",
  OF: "end",
  "[1~": "home",
  "[4~": "end",
  "[7~": "home",
  "[8~": "end",
  "[3~": "delete",
};

const CONTROLS: Record<string, Key["name"]> = {
  "\r": "enter",
  "\n": "newline",
  "\x7f": "backspace",
  "\b": "backspace",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x01": "home",
  "\x05": "end",
  "\x02": "left",
  "\x06": "right",
  "\x10": "up",
  "\x0e": "down",
  "\x15": "kill-line-start",
  "\x0b": "kill-line-end",
  "\x17": "kill-word",
  "\x0c": "redraw",
  "\x1a": "suspend",
  "\t": "tab",
  "\x12": "search-history",
  "\x07": "ctrl-g",
};

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/**
 * A stateful parser for a stream of input chunks: bracketed pastes (which may span chunks) become one
 * text key with their line breaks kept, so a pasted multi-line prompt is not sent line by line.
 */
export class KeyReader {
  #paste: string | undefined;

  feed(data: string): Key[] {
    const keys: Key[] = [];
    let rest = data;
    while (rest !== "") {
      if (this.#paste !== undefined) {
        const end = rest.indexOf(PASTE_END);
        if (end < 0) {
          this.#paste += rest;
          return keys;
        }
        const text = (this.#paste + rest.slice(0, end)).replace(/\r\n?/g, "\n").replace(/\t/g, "  ");
        this.#paste = undefined;
        if (text !== "") keys.push({ name: "text", text });
        rest = rest.slice(end + PASTE_END.length);
        continue;
      }
      const start = rest.indexOf(PASTE_START);
      if (start < 0) {
        keys.push(...parseKeys(rest));
        break;
      }
      keys.push(...parseKeys(rest.slice(0, start)));
      this.#paste = "";
      rest = rest.slice(start + PASTE_START.length);
    }
    return keys;
  }
}

export function parseKeys(data: string): Key[] {
  const keys: Key[] = [];
  let text = "";
  const push = (key: Key) => {
    if (text !== "") keys.push({ name: "text", text });
    text = "";
    keys.push(key);
  };
  let i = 0;
  while (i < data.length) {
    const char = data[i]!;
    if (char === "\x1b") {
      const rest = data.slice(i + 1);
      if (rest[0] === "\r" || rest[0] === "\n") {
        // Alt-Enter inserts a newline, like Ctrl-J.
        push({ name: "newline" });
        i += 2;
        continue;
      }
      const csi = /^(\[[0-9;]*[~A-Za-z]|O[A-Za-z])/.exec(rest);
      if (csi) {
        const sequence = csi[1]!.replace(/^\[1;\d+([A-D])$/, "[$1");
        const name = SEQUENCES[sequence];
        if (name) push({ name } as Key);
        i += 1 + csi[1]!.length;
        continue;
      }
      // A lone Esc, or Esc before anything else in the same read (Esc Esc, Alt-<key>): an Esc, then the rest as usual.
      push({ name: "escape" });
      i += 1;
      continue;
    }
    const control = CONTROLS[char];
    if (control) {
      // CR LF from a paste or a line-mode terminal is one Enter.
      if (char === "\r" && data[i + 1] === "\n") i += 1;
      push({ name: control } as Key);
      i += 1;
      continue;
    }
    if (char < " ") {
      i += 1;
      continue;
    }
    text += char;
    i += 1;
  }
  if (text !== "") keys.push({ name: "text", text });
  return keys;
}
