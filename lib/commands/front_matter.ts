// The front matter of a command file, Claude Code's way: an optional `---` block of `key: value` lines at the top.
// Only flat string values are read (quoted or not); other keys (`allowed-tools`, `model`, …) are ignored.

export type CommandFile = { fields: Record<string, string>; body: string };

export function splitFrontMatter(text: string): CommandFile {
  const source = text.startsWith("\uFEFF") ? text.slice(1) : text;
  const match = /^---[ \t]*\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)/.exec(source);
  if (!match) return { fields: {}, body: source };
  const fields: Record<string, string> = {};
  for (const line of match[1]!.split(/\r?\n/)) {
    const field = /^([A-Za-z][\w-]*)[ \t]*:[ \t]*(.*?)[ \t]*$/.exec(line);
    if (!field) continue;
    fields[field[1]!] = unquote(field[2]!);
  }
  return { fields, body: source.slice(match[0].length) };
}

function unquote(value: string): string {
  if (value.length >= 2 && value.startsWith('"') && value.endsWith('"')) {
    try {
      return JSON.parse(value) as string;
    } catch {
      return value.slice(1, -1);
    }
  }
  if (value.length >= 2 && value.startsWith("'") && value.endsWith("'"))
    return value.slice(1, -1).replaceAll("''", "'");
  return value;
}
