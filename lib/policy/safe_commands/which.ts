// which: Debian's (debianutils: -a, -s) and GNU which (getopt_long). The operands are program names looked up on
// PATH, not files to read.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const which: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -a --all
    -s
    -i --read-alias
    --skip-alias
    --read-functions
    --skip-functions
    --skip-dot
    --skip-tilde
    --show-dot
    --show-tilde
    --tty-only
    -v -V --version
    --help
  `),
  operands: () => undefined,
};
