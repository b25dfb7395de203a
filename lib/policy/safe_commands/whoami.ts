// whoami (GNU coreutils 9.x, src/whoami.c): only the standard options.

import { optionTable } from "./option_table.ts";
import { noOperands, type ProgramRule } from "./judge.ts";

export const whoami: ProgramRule = {
  kind: "table",
  table: optionTable(`
    --help
    --version
  `),
  operands: noOperands("whoami"),
};
