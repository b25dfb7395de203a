// A custom command's prompt (Claude Code's placeholders): `$ARGUMENTS` is everything typed after the name, `$1` …
// `$9` its words (quotes group words); when the body names neither, the arguments follow it on a line of their own.

/** The words of `text`, split at whitespace; "double" or 'single' quotes keep spaces inside one word. */
export function argumentWords(text: string): string[] {
  const words: string[] = [];
  const pattern = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (const match of text.matchAll(pattern)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

export function expandCommand(body: string, args: string): string {
  const trimmed = args.trim();
  const words = argumentWords(trimmed);
  let used = false;
  const expanded = body.replace(/\$(ARGUMENTS|[1-9])/g, (_match, name: string) => {
    used = true;
    return name === "ARGUMENTS" ? trimmed : words[Number(name) - 1] ?? "";
  });
  if (used || trimmed === "") return expanded;
  return `${expanded.replace(/\s+$/, "")}\n\nARGUMENTS: ${trimmed}`;
}
