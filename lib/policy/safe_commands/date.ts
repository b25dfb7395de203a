// date (GNU coreutils 9.x, src/date.c). Setting the clock asks in every spelling: -s, --set and its abbreviations
// (`--s`, `--se`), and an operand that is not a `+FORMAT` (`date 010100002001` sets the clock too).

import { optionTable } from "./option_table.ts";
import type { Judgement, ProgramRule } from "./judge.ts";

export const date: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -d --date STRING
    --debug
    -f --file DATEFILE : path
    -I --iso-8601 [FMT]
    -r --reference FILE : path
    --resolution
    -R --rfc-email --rfc-822 --rfc-2822
    --rfc-3339 FMT
    -s --set STRING ! sets the system clock
    -u --utc --universal --uct
    --help
    --version
  `),
  operands(operands): Judgement {
    if (operands.length > 1) return "gives date more than one operand";
    const operand = operands[0];
    if (operand !== undefined && !operand.startsWith("+"))
      return `gives date ${operand}, which is not a +FORMAT: a date operand sets the system clock`;
    return undefined;
  },
};
