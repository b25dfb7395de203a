// head (GNU coreutils 9.x, src/head.c). The digits are the obsolete `-5` count; a count that is not a number
// (`-5c FILE`, read by head as a file) asks.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const head: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -c --bytes NUM : number
    -n --lines NUM : number
    ---presume-input-pipe
    -q --quiet --silent
    -v --verbose
    -z --zero-terminated
    -0 -1 -2 -3 -4 -5 -6 -7 -8 -9
    --help
    --version
  `),
};
