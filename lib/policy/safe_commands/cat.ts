// cat (GNU coreutils 9.x, src/cat.c): every option only changes how the operands are shown.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const cat: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -A --show-all
    -b --number-nonblank
    -e
    -E --show-ends
    -n --number
    -s --squeeze-blank
    -t
    -T --show-tabs
    -u
    -v --show-nonprinting
    --help
    --version
  `),
};
