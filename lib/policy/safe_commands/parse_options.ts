// Splits a command's words into options and operands the way the program itself will (getopt/getopt_long): long
// options by exact name or, where the program allows it, by a unique prefix (`--o` is sort's `--output`; a prefix
// that fits two options is ambiguous and asks); `--name=value` and `--name value` for a required argument; bundles
// of short letters where each letter is its own option and a letter that takes an argument consumes the rest of
// the word or the next word; `--` ends the options. Anything the table does not know is a failure, never a guess.

import type { OptionSpec, OptionTable } from "./option_table.ts";

export type ParsedOption = {
  spec: OptionSpec;
  /** How the option was spelled on the command line (`--o`, `-n`), for reasons. */
  spelled: string;
  value: string | undefined;
};

export type ParsedArguments = {
  options: ParsedOption[];
  operands: string[];
  /**
   * Option words that came after an operand. GNU tools treat them as options unless POSIXLY_CORRECT is set, and
   * then they are file names: the caller also judges them as paths so either reading is safe.
   */
  lateOptionWords: string[];
};

export type ParseOutcome = { ok: true; parsed: ParsedArguments } | { ok: false; reason: string };

/** The pseudo-option of a `-5` count word. */
const COUNT: OptionSpec = { letters: "", names: [], argument: "none", value: "number", asks: undefined };

export function parseArguments(program: string, table: OptionTable, args: readonly string[]): ParseOutcome {
  const options: ParsedOption[] = [];
  const operands: string[] = [];
  const lateOptionWords: string[] = [];
  const fail = (reason: string): ParseOutcome => ({ ok: false, reason: `uses ${program} ${reason}` });
  let index = 0;
  let endOfOptions = false;
  while (index < args.length) {
    const word = args[index]!;
    index += 1;
    if (endOfOptions || word === "-" || !word.startsWith("-")) {
      operands.push(word);
      continue;
    }
    if (word === "--") {
      endOfOptions = true;
      continue;
    }
    const late = operands.length > 0;
    const firstOption = options.length;
    const start = index;
    if (table.numericWords === true && /^-[0-9]+$/.test(word)) {
      options.push({ spec: COUNT, spelled: word, value: word.slice(1) });
    } else if (word.startsWith("--")) {
      const equals = word.indexOf("=");
      const name = equals < 0 ? word.slice(2) : word.slice(2, equals);
      const inline = equals < 0 ? undefined : word.slice(equals + 1);
      const found = resolveLong(table, name);
      if (typeof found === "string") return fail(`--${name}, ${found}`);
      const spelled = found.names.includes(name) ? `--${name}` : `--${name} (--${fullName(found, name)})`;
      if (found.argument === "none") {
        if (inline !== undefined) return fail(`${spelled} with a value it does not take`);
        options.push({ spec: found, spelled, value: undefined });
      } else if (found.argument === "optional" || inline !== undefined) {
        options.push({ spec: found, spelled, value: inline });
      } else {
        if (index >= args.length) return fail(`${spelled} without its argument`);
        options.push({ spec: found, spelled, value: args[index]! });
        index += 1;
      }
    } else {
      for (let position = 1; position < word.length; position += 1) {
        const letter = word[position]!;
        const spec = table.options.find((option) => option.letters.includes(letter));
        if (spec === undefined) return fail(`-${letter}, an option scv does not know as harmless`);
        const spelled = `-${letter}`;
        const rest = word.slice(position + 1);
        if (spec.argument === "none") {
          options.push({ spec, spelled, value: undefined });
          continue;
        }
        if (table.shortArgument === "next-word") {
          const digits = /^[0-9]+/.exec(rest)?.[0];
          if (table.attachedDigits?.includes(letter) && digits !== undefined) {
            options.push({ spec, spelled, value: digits });
            position += digits.length;
            continue;
          }
          if (spec.argument === "optional") {
            options.push({ spec, spelled, value: undefined });
            continue;
          }
          if (index >= args.length) return fail(`${spelled} without its argument`);
          options.push({ spec, spelled, value: args[index]! });
          index += 1;
          continue;
        }
        if (rest !== "" || spec.argument === "optional") {
          options.push({ spec, spelled, value: rest === "" ? undefined : rest });
        } else {
          if (index >= args.length) return fail(`${spelled} without its argument`);
          options.push({ spec, spelled, value: args[index]! });
          index += 1;
        }
        break;
      }
    }
    if (late && options.length > firstOption) lateOptionWords.push(word, ...args.slice(start, index));
  }
  return { ok: true, parsed: { options, operands, lateOptionWords } };
}

/** The option a long name stands for, or why there is none. */
function resolveLong(table: OptionTable, name: string): OptionSpec | string {
  if (name === "") return "an option with no name";
  const exact = table.options.find((option) => option.names.includes(name));
  if (exact !== undefined) return exact;
  if (!table.abbreviations) return "an option scv does not know as harmless";
  const candidates = table.options.filter((option) => option.names.some((full) => full.startsWith(name)));
  if (candidates.length === 0) return "an option scv does not know as harmless";
  if (candidates.length > 1) {
    const names = candidates.map((option) => `--${fullName(option, name)}`).join(", ");
    return `an ambiguous abbreviation (${names})`;
  }
  return candidates[0]!;
}

function fullName(spec: OptionSpec, prefix: string): string {
  return spec.names.find((full) => full.startsWith(prefix)) ?? spec.names[0]!;
}
