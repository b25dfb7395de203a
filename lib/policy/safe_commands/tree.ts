// tree (tree 2.x, tree.c: its own parser). Short options take their argument from the next word (`-P pattern`;
// `-L` also `-L3`), long ones must be spelled out. -l follows links, -o writes a file, -R writes 00Tree.html
// files, --info/--infofile print .info files: they ask.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const tree: ProgramRule = {
  kind: "table",
  table: optionTable(
    `
    -a -d -f -x -q -N -Q -p -u -g -s -h -D -F -v -t -c -U -r -i -A -S -n -C -X -J
    -l ! follows-links
    -L LEVEL : number
    -R ! writes
    -P PATTERN : pattern
    -I PATTERN : pattern
    -o FILE ! writes
    -H BASEHREF
    -T TITLE
    --gitignore
    --gitfile FILE : path
    --matchdirs
    --metafirst
    --ignore-case
    --prune
    --noreport
    --inodes
    --device
    --dirsfirst
    --filesfirst
    --si
    --du
    --nolinks
    --condense
    --acl
    --selinux
    --hyperlink
    --scheme SCHEME
    --authority HOST
    --charset CHARSET
    --filelimit N : number
    --timefmt FORMAT : format
    --sort NAME
    --compress N : number
    --hintro FILE : path
    --houtro FILE : path
    --fromfile
    --fromtabfile
    --fflinks
    --info ! prints the contents of .info files
    --infofile FILE ! prints the contents of .info files
    --opt-toggle ! unlisted
    --version
    --help
  `,
    { abbreviations: false, shortArgument: "next-word", attachedDigits: "L" },
  ),
};
