// stat (GNU coreutils 9.x, src/stat.c). -L only follows the operands, which are judged after every link on them
// is resolved.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const stat: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -L --dereference
    -f --file-system
    -c --format FORMAT : format
    --printf FORMAT : format
    -t --terse
    --cached MODE
    --help
    --version
  `),
};
