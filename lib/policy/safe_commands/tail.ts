// tail (GNU coreutils 9.x, src/tail.c). Following a file only waits until the command's timeout.

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const tail: ProgramRule = {
  kind: "table",
  table: optionTable(`
    -c --bytes NUM : number
    --debug
    -f
    --follow [HOW]
    -F
    -n --lines NUM : number
    --max-unchanged-stats N : number
    ---disable-inotify
    --pid PID : number
    ---presume-input-pipe
    -q --quiet --silent
    --retry
    -s --sleep-interval N : number
    -v --verbose
    -z --zero-terminated
    -0 -1 -2 -3 -4 -5 -6 -7 -8 -9
    --help
    --version
  `),
};
