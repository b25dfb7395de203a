// cut (GNU coreutils 9.x, src/cut.c; -F, -O, -w and --no-partial are newer than 9.1).

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const cut: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -b --bytes LIST
    -c --characters LIST
    -d --delimiter DELIM
    -f --fields LIST
    -F LIST
    -n --no-partial
    -O --output-delimiter STRING
    -s --only-delimited
    -w
    --whitespace-delimited [MODE]
    --complement
    -z --zero-terminated
    --help
    --version
  `),
};
