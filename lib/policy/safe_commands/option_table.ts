// One program's real option table, written the way its --help reads, so it can be checked against the program's
// source at a glance. Each line is one option: its spellings (`-n --lines`), then `ARG` when it takes an argument
// or `[ARG]` when the argument is optional, then `: kind` (how the argument is judged: text unless said), then
// `! reason` when the option is not known to be harmless. A short letter and a long name on one line share the
// argument rule; where getopt's short and long forms differ (ls -F vs --classify[=WHEN]) they get a line each.

/** How an option's argument (or an operand) is judged. */
export type ValueKind =
  /** A file the program reads: must stay in the workspace and not look like a secret. */
  | "path"
  /** A count or size: anything that is not number-like asks (an obsolete `-5c FILE` must not hide a path). */
  | "number"
  /** A regular expression or glob matched against text or names. */
  | "pattern"
  /** An output format (`+%Y`, `%h %s`). */
  | "format"
  /** A git revision: one that names a path with `:` asks. */
  | "revision"
  /** Anything else that is neither read nor run. */
  | "text";

export type OptionSpec = {
  /** The short letters that spell this option (often one, sometimes none). */
  letters: string;
  /** Long names without their leading `--`. */
  names: readonly string[];
  argument: "none" | "required" | "optional";
  value: ValueKind;
  /** Why the option is not harmless; undefined when it is. */
  asks: string | undefined;
};

export type OptionTable = {
  readonly options: readonly OptionSpec[];
  /**
   * GNU getopt_long takes any unique prefix of a long option (`--o` is sort's `--output`). Programs with their own
   * parsers (git's log and diff options, tree) do not, and for git an exact spelling is simply the safer rule.
   */
  readonly abbreviations: boolean;
  /**
   * Where a short option's argument comes from: getopt's rest of the word or else the next word (`-n5`, `-n 5`),
   * or tree's always the next word (`-P pattern`; `-L` alone also takes attached digits).
   */
  readonly shortArgument: "attached-or-next" | "next-word";
  /** Letters whose numeric argument may be attached even in next-word mode (tree's `-L3`). */
  readonly attachedDigits?: string;
  /** `-5` is a count (head, tail, git log, git grep). */
  readonly numericWords?: boolean;
};

/** Shared reasons, so every recursive or link-following form says the same and names the built-in tools. */
export const SEARCH_HINT = "use the built-in grep, glob, list and read tools, which skip secrets";
export const REASONS: Readonly<Record<string, string>> = {
  recurses: `searches directories recursively and so reaches secrets; ${SEARCH_HINT}`,
  "follows-links": `follows symbolic links and so can leave the workspace; ${SEARCH_HINT}`,
  writes: "writes files",
  runs: "runs other programs",
  "reads-names": "reads the names of the files to open from a file scv cannot check",
  unlisted: "is not on the read-only list",
};

/** Parses the table text described at the top of this file. */
export function optionTable(
  text: string,
  settings: Partial<Omit<OptionTable, "options">> = {},
): OptionTable {
  const options: OptionSpec[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#")) continue;
    options.push(parseLine(line));
  }
  return {
    options,
    abbreviations: settings.abbreviations ?? true,
    shortArgument: settings.shortArgument ?? "attached-or-next",
    ...(settings.attachedDigits === undefined ? {} : { attachedDigits: settings.attachedDigits }),
    ...(settings.numericWords === undefined ? {} : { numericWords: settings.numericWords }),
  };
}

function parseLine(line: string): OptionSpec {
  let rest = line;
  let asks: string | undefined;
  const bang = rest.indexOf(" ! ");
  if (bang >= 0) {
    const reason = rest.slice(bang + 3).trim();
    asks = REASONS[reason] ?? reason;
    rest = rest.slice(0, bang);
  }
  let value: ValueKind = "text";
  const colon = rest.indexOf(" : ");
  if (colon >= 0) {
    value = rest.slice(colon + 3).trim() as ValueKind;
    if (!["path", "number", "pattern", "format", "revision", "text"].includes(value))
      throw new Error(`option table line "${line}" has an unknown kind`);
    rest = rest.slice(0, colon);
  }
  let letters = "";
  const names: string[] = [];
  let argument: OptionSpec["argument"] = "none";
  for (const token of rest.split(/\s+/)) {
    if (token.startsWith("--")) names.push(token.slice(2));
    else if (token.startsWith("-") && token.length === 2) letters += token[1];
    else if (token.startsWith("[") && token.endsWith("]")) argument = "optional";
    else if (/^[A-Z][A-Z0-9_=,.-]*$/.test(token)) argument = "required";
    else throw new Error(`option table line "${line}" has an unknown token "${token}"`);
  }
  if (letters === "" && names.length === 0) throw new Error(`option table line "${line}" names no option`);
  return { letters, names, argument, value, asks };
}

/** How an option reads in a reason: its first long name, else its letter. */
export function optionName(spec: OptionSpec): string {
  return spec.names.length > 0 ? `--${spec.names[0]}` : `-${spec.letters[0]}`;
}
