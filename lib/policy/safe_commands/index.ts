// The read-only list: each program scv runs unasked under `on-risk`, with its option table and operand rule.
// rg is not on it: it always searches directories recursively (no operand means the whole workspace) and has no
// option that stops it, so the built-in grep does its job.

import { cat } from "./cat.ts";
import { cut } from "./cut.ts";
import { date } from "./date.ts";
import { df } from "./df.ts";
import { du } from "./du.ts";
import { echo } from "./echo.ts";
import { file } from "./file.ts";
import { find } from "./find.ts";
import { git } from "./git.ts";
import { grep } from "./grep.ts";
import { head } from "./head.ts";
import type { ProgramRule } from "./judge.ts";
import { SEARCH_HINT } from "./option_table.ts";
import { ls } from "./ls.ts";
import { nl } from "./nl.ts";
import { pwd } from "./pwd.ts";
import { sed } from "./sed.ts";
import { sort } from "./sort.ts";
import { stat } from "./stat.ts";
import { tail } from "./tail.ts";
import { tree } from "./tree.ts";
import { uname } from "./uname.ts";
import { uniq } from "./uniq.ts";
import { wc } from "./wc.ts";
import { which } from "./which.ts";
import { whoami } from "./whoami.ts";

export const READ_ONLY_PROGRAMS: Readonly<Record<string, ProgramRule>> = {
  ls,
  cat,
  head,
  tail,
  wc,
  grep,
  find,
  pwd,
  echo,
  which,
  file,
  stat,
  tree,
  du,
  df,
  uname,
  date,
  whoami,
  sort,
  uniq,
  cut,
  nl,
  sed,
  git,
};

/** Why some programs that look read-only are not on the list. */
export const LEFT_OFF: Readonly<Record<string, string>> = {
  rg: `always searches directories recursively (the whole workspace without an operand); ${SEARCH_HINT}`,
};

export { GIT_SUBCOMMANDS } from "./git.ts";
export { createJudgeContext, type Judgement, judgeProgram, type ProgramRule, type TableRule } from "./judge.ts";
export { type OptionSpec, type OptionTable, SEARCH_HINT } from "./option_table.ts";
export { parseArguments } from "./parse_options.ts";
