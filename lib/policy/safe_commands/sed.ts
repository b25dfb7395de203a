// sed (GNU sed 4.x, sed/sed.c): read-only only as `sed -n SCRIPT FILE...` with a print-only script as the first
// operand. -e/--expression and -f/--file bring a script in another way, -i/--in-place rewrites files, and -s and
// -z are left off the list; each asks in every spelling, abbreviations and bundles included (`--e=…`, `-nf`,
// `--i`). The script is judged as a script, never as a path.

import { optionName, optionTable } from "./option_table.ts";
import { judgePaths, type ProgramRule } from "./judge.ts";

export const sed: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -n --quiet --silent
    --debug
    -e --expression SCRIPT ! gives a script in a form scv does not judge
    -f --file FILE ! takes its script from a file scv does not judge
    --follow-symlinks
    -i --in-place [SUFFIX] ! writes
    -l --line-length N : number
    --posix
    -E -r --regexp-extended
    -s --separate ! unlisted
    --sandbox
    -u --unbuffered
    -z --null-data --zero-terminated ! unlisted
    -b --binary
    -V ARG ! is undocumented
    --help
    --version
  `),
  operands(operands, options, context) {
    if (!options.some((option) => optionName(option.spec) === "--quiet")) return "runs sed without -n";
    const script = operands[0];
    if (script === undefined || !isPrintOnlySedScript(script)) return "runs a sed script that is not print-only";
    return judgePaths(operands.slice(1), context);
  },
};

/** `sed -n` scripts that only print: line numbers, `$`, ranges, steps, `p`, `=`, `;` and spaces (no w, e, r or s). */
export function isPrintOnlySedScript(script: string): boolean {
  if (script.length === 0) return false;
  for (const char of script) {
    const digit = char >= "0" && char <= "9";
    if (!digit && !",$p=; ~+".includes(char)) return false;
  }
  return script.includes("p") || script.includes("=");
}
