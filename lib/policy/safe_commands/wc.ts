// wc (GNU coreutils 9.x, src/wc.c). --files0-from takes the names to open from a file scv cannot check.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const wc: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -c --bytes
    -m --chars
    -l --lines
    -w --words
    --debug
    --files0-from FILE ! reads-names
    -L --max-line-length
    --total WHEN
    --help
    --version
  `),
};
