// nl (GNU coreutils 9.x, src/nl.c).

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const nl: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -b --body-numbering STYLE
    -d --section-delimiter CC
    -f --footer-numbering STYLE
    -h --header-numbering STYLE
    -i --line-increment N : number
    -l --join-blank-lines N : number
    -n --number-format FORMAT
    -p --no-renumber
    -s --number-separator STRING
    -v --starting-line-number N : number
    -w --number-width N : number
    --help
    --version
  `),
};
