// A `bash` call's declaration: every simple command of its line, each judged against the read-only list.
import type { CommandAccess } from "./access.ts";
import { splitCommandLine } from "./command_parts.ts";
import { quoteWords } from "./rule.ts";
import { readOnlyVerdict } from "./safe_command.ts";

/** `protectedRoots` as readOnlyVerdict takes them. */
export function commandAccess(
  command: string,
  workspace: string,
  protectedRoots: readonly string[] = [],
): CommandAccess {
  const parts = splitCommandLine(command).map((part) => ({
    ...part,
    readOnly: part.plain && part.expanding.length === 0 && part.words.length > 0 &&
      readOnlyVerdict(quoteWords(part.words), workspace, protectedRoots).safe,
  }));
  return { text: command, parts };
}
