// The one-line description of a skill for the system prompt (spec §9 `read_skill`): front-matter
// `description:`, else the first line that is not a heading, else `No description provided`.

export const NO_DESCRIPTION = "No description provided";
const MAX_DESCRIPTION_CHARS = 240;

export function skillDescription(text: string): string {
  const lines = text.replace(/^\ufeff/, "").split(/\r?\n/);
  let bodyStart = 0;
  if (lines[0]?.trim() === "---") {
    const close = lines.findIndex((line, index) => index > 0 && (line.trim() === "---" || line.trim() === "..."));
    if (close > 0) {
      const fromFrontMatter = frontMatterDescription(lines.slice(1, close));
      if (fromFrontMatter !== "") return cut(fromFrontMatter);
      bodyStart = close + 1;
    }
  }
  for (const line of lines.slice(bodyStart)) {
    const trimmed = line.trim();
    if (trimmed === "" || trimmed.startsWith("#") || /^(-{3,}|={3,})$/.test(trimmed)) continue;
    return cut(trimmed);
  }
  return NO_DESCRIPTION;
}

function frontMatterDescription(lines: string[]): string {
  for (let index = 0; index < lines.length; index += 1) {
    const match = /^description\s*:\s*(.*)$/.exec(lines[index]!);
    if (match === null) continue;
    let value = match[1]!.trim();
    if (/^[|>][+-]?$/.test(value)) {
      // A YAML block scalar: the indented lines that follow.
      const block: string[] = [];
      for (const next of lines.slice(index + 1)) {
        if (next.trim() !== "" && !/^\s/.test(next)) break;
        block.push(next.trim());
      }
      value = block.join(" ");
    } else if (
      (value.startsWith('"') && value.endsWith('"') && value.length >= 2) ||
      (value.startsWith("'") && value.endsWith("'") && value.length >= 2)
    ) {
      value = value.slice(1, -1);
    }
    return value.replace(/\s+/g, " ").trim();
  }
  return "";
}

function cut(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  const chars = [...flat];
  return chars.length <= MAX_DESCRIPTION_CHARS ? flat : chars.slice(0, MAX_DESCRIPTION_CHARS).join("");
}
