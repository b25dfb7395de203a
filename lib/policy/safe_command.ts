// Which `bash` commands are known to be read-only, so `on-risk` runs them without asking (issue 15 §3, issue 26).
// An allow-list: each program on it has its real option table (safe_commands/), its words are split into options
// and operands the way the program's own parser would, and only options known to be harmless pass; every option
// argument and operand is judged by its kind (paths must stay inside the workspace and not look like secrets).
// Anything unknown, ambiguous or not understood by the shell-words parser asks.

import { createJudgeContext, judgeProgram, LEFT_OFF, READ_ONLY_PROGRAMS } from "./safe_commands/index.ts";
import { parseCommandLine } from "./shell_words.ts";

export type SafetyVerdict = { safe: true } | { safe: false; reason: string };

/**
 * The verdict for one `bash` command line in `workspace`; no path may reach into `protectedRoots` (scv's instance
 * home and configuration files, canonical paths).
 */
export function readOnlyVerdict(
  command: string,
  workspace: string,
  protectedRoots: readonly string[] = [],
): SafetyVerdict {
  const parsed = parseCommandLine(command);
  if (!parsed.ok) return { safe: false, reason: `uses ${parsed.reason}` };
  const context = createJudgeContext(workspace, protectedRoots);
  for (const stage of parsed.pipeline) {
    const [program, ...args] = stage.words.map((word) => word.text);
    const rule = Object.hasOwn(READ_ONLY_PROGRAMS, program!) ? READ_ONLY_PROGRAMS[program!] : undefined;
    if (rule === undefined) {
      const why = Object.hasOwn(LEFT_OFF, program!) ? LEFT_OFF[program!] : "is not on the read-only list";
      return { safe: false, reason: `runs ${program}, which ${why}` };
    }
    const reason = judgeProgram(program!, rule, args, context);
    if (reason !== undefined) return { safe: false, reason };
  }
  return { safe: true };
}
