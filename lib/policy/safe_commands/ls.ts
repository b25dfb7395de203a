// ls (GNU coreutils 9.x, src/ls.c). -R recurses and -L follows links below the operands: both ask.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const ls: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -a --all
    -A --almost-all
    --author
    -b --escape
    --block-size SIZE
    -B --ignore-backups
    -c
    -C
    --color [WHEN]
    -d --directory
    -D --dired
    -f
    -F
    --classify [WHEN]
    --file-type
    --format WORD
    --full-time
    -g
    --group-directories-first
    -G --no-group
    -h --human-readable
    --si
    -H --dereference-command-line
    --dereference-command-line-symlink-to-dir
    --hide PATTERN : pattern
    --hyperlink [WHEN]
    --indicator-style WORD
    -i --inode
    -I --ignore PATTERN : pattern
    -k --kibibytes
    -l
    -L --dereference ! follows-links
    -m
    -n --numeric-uid-gid
    -N --literal
    -o
    -p
    -q --hide-control-chars
    --show-control-chars
    -Q --quote-name
    --quoting-style WORD
    -r --reverse
    -R --recursive ! recurses
    -s --size
    -S
    --sort WORD
    --time WORD
    --time-style STYLE : format
    -t
    -T --tabsize COLS : number
    -u
    -U
    -v
    -w --width COLS : number
    -x
    -X
    -Z --context
    --zero
    -1
    --help
    --version
  `),
};
