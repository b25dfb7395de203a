// grep (GNU grep 3.x, src/grep.c). Recursion asks in every spelling: -r, -R, --recursive,
// --dereference-recursive and -d/--directories with any value but read or skip (grep takes abbreviations of the
// value too: `-d rec`). The first operand is the pattern unless -e or -f gave one.

import { optionName, optionTable, REASONS } from "./option_table.ts";
import { judgePaths, type ProgramRule } from "./judge.ts";

export const grep: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -E --extended-regexp
    -F --fixed-strings --fixed-regexp
    -G --basic-regexp
    -P --perl-regexp
    -X MATCHER ! is undocumented
    -e --regexp PATTERNS : pattern
    -f --file FILE : path
    -i -y --ignore-case
    --no-ignore-case
    -w --word-regexp
    -x --line-regexp
    -z --null-data
    -s --no-messages
    -v --invert-match
    -V --version
    --help
    -m --max-count NUM : number
    -b --byte-offset
    -n --line-number
    --line-buffered
    -H --with-filename
    -h --no-filename
    --label LABEL
    -o --only-matching
    -q --quiet --silent
    --binary-files TYPE
    -a --text
    -I
    -d --directories ACTION
    -D --devices ACTION
    -r --recursive ! recurses
    -R --dereference-recursive ! recurses
    --include GLOB : pattern
    --exclude GLOB : pattern
    --exclude-from FILE : path
    --exclude-dir GLOB : pattern
    -L --files-without-match
    -l --files-with-matches
    -c --count
    -T --initial-tab
    -Z --null
    -B --before-context NUM : number
    -A --after-context NUM : number
    -C --context NUM : number
    --group-separator SEP
    --no-group-separator
    --color --colour [WHEN]
    -U --binary
    -u --unix-byte-offsets
    -0 -1 -2 -3 -4 -5 -6 -7 -8 -9
  `),
  values: {
    "--directories": (value) => value === "read" || value === "skip" ? undefined : REASONS.recurses,
  },
  operands(operands, options, context) {
    const patternGiven = options.some((option) => ["--regexp", "--file"].includes(optionName(option.spec)));
    return judgePaths(patternGiven ? operands : operands.slice(1), context);
  },
};
