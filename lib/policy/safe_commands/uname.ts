// uname (GNU coreutils 9.x, src/uname.c).

import { optionTable } from "./option_table.ts";
import { noOperands, type ProgramRule } from "./judge.ts";

export const uname: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -a --all
    -A --all-labeled
    -s --kernel-name --sysname
    -n --nodename
    -r --kernel-release --release
    -v --kernel-version
    -m --machine
    -p --processor
    -i --hardware-platform
    -o --operating-system
    --help
    --version
  `),
  operands: noOperands("uname"),
};
