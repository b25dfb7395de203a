// pwd, the Bash builtin (and GNU coreutils' src/pwd.c).

import { optionTable } from "./option_table.ts";
import { noOperands, type ProgramRule } from "./judge.ts";

export const pwd: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -L --logical
    -P --physical
    --help
    --version
  `),
  operands: noOperands("pwd"),
};
