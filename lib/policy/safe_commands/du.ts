// du (GNU coreutils 9.x, src/du.c). du walks directories but only reports sizes; -L follows links out of the
// workspace and --files0-from takes names from a file, so both ask. -D/-H follow only the operands, which are
// judged after their links are resolved.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const du: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -0 --null
    -a --all
    -A --apparent-size
    -B --block-size SIZE
    -b --bytes
    -c --total
    ---debug
    -d --max-depth N : number
    -D --dereference-args
    -H
    -h --human-readable
    -k
    -l --count-links
    -L --dereference ! follows-links
    -m
    -P --no-dereference
    -s --summarize
    -S --separate-dirs
    -t --threshold SIZE : number
    -x --one-file-system
    -X --exclude-from FILE : path
    --exclude PATTERN : pattern
    --files0-from FILE ! reads-names
    --inodes
    --si
    --time [WORD]
    --time-style STYLE : format
    --help
    --version
  `),
};
