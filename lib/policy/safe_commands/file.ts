// file (file 5.x, src/file_opts.h). Asks for what compiles magic (-C), runs decompressors (-z, -Z), takes names
// or magic from other files (-f, -m), resets access times (-p) or turns off file's own sandbox (-S).

import { optionTable } from "./option_table.ts";
import type { ProgramRule } from "./judge.ts";

export const file: ProgramRule = {
  kind: "table",
  table: optionTable(`
    --help
    -v --version
    -m --magic-file LIST ! reads magic files scv does not check
    -z --uncompress ! runs
    -Z --uncompress-noreport ! runs
    -b --brief
    -c --checking-printout
    -d --debug
    -E
    -e --exclude TEST
    --exclude-quiet TEST
    -f --files-from FILE ! reads-names
    -F --separator STRING
    -i --mime
    --apple
    --extension
    --mime-type
    --mime-encoding
    -k --keep-going
    -l --list
    -L --dereference
    -h --no-dereference
    -n --no-buffer
    -N --no-pad
    -0 --print0
    -p --preserve-date ! changes the access times of the files it reads
    -P --parameter NAME=VALUE
    -r --raw
    -s --special-files
    -S --no-sandbox ! turns off its own sandbox
    -C --compile ! writes
  `),
};
