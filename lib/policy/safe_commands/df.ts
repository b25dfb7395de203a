// df (GNU coreutils 9.x, src/df.c). --output names the columns to print, not a file.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const df: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -a --all
    -B --block-size SIZE
    -i --inodes
    -h --human-readable
    -H --si
    -k
    -l --local
    -m
    --output [FIELDS]
    -P --portability
    -T --print-type
    --sync
    --no-sync
    --total
    -t --type TYPE
    -F TYPE
    -x --exclude-type TYPE
    -v
    --help
    --version
  `),
};
