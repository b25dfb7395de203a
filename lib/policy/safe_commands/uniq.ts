// uniq (GNU coreutils 9.x, src/uniq.c). A second operand is the output file, so at most one is read-only.

import { optionTable } from "./option_table.ts";
import { judgePaths, type ProgramRule } from "./judge.ts";

export const uniq: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -c --count
    -d --repeated
    -D
    --all-repeated [METHOD]
    --group [METHOD]
    -i --ignore-case
    -u --unique
    -f --skip-fields N : number
    -s --skip-chars N : number
    -w --check-chars N : number
    -z --zero-terminated
    -0 -1 -2 -3 -4 -5 -6 -7 -8 -9
    --help
    --version
  `),
  operands(operands, _options, context) {
    if (operands.length > 1) return "gives uniq a second operand, which is its output file";
    return judgePaths(operands, context);
  },
};
