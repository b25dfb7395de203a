// sort (GNU coreutils 9.x, src/sort.c). Asks for: -o/--output (writes a file: `sort --o=build.sh` overwrites a
// script), --compress-program (runs a program), --files0-from (names from a file), and -T/--temporary-directory:
// sort then creates and deletes its spill files in a directory of the caller's choosing, a write anywhere, for a
// convenience a read-only command never needs.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const sort: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -b --ignore-leading-blanks
    -c
    -C
    --check [WHEN]
    --compress-program PROG ! runs
    --debug
    -d --dictionary-order
    -f --ignore-case
    --files0-from FILE ! reads-names
    -g --general-numeric-sort
    -h --human-numeric-sort
    -i --ignore-nonprinting
    -k --key KEYDEF
    -m --merge
    -M --month-sort
    -n --numeric-sort
    -o --output FILE ! writes
    -r --reverse
    -R --random-sort
    --random-source FILE : path
    -s --stable
    -S --buffer-size SIZE : number
    --sort WORD
    -t --field-separator SEP
    -T --temporary-directory DIR ! writes temporary files into a directory of its choosing
    -u --unique
    -V --version-sort
    -y ARG
    -z --zero-terminated
    --batch-size N : number
    --parallel N : number
    --help
    --version
  `),
};
