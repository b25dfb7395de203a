// find (GNU findutils 4.x): `find [-H] [-P] [starting-point...] [expression]`, its own syntax, no abbreviations.
// Starting points are paths; every word of the expression must be a known primary (with its arguments judged by
// kind) or an operator. What runs a program (-exec, -execdir, -ok, -okdir, whose program is never judged as a
// path), deletes (-delete), writes (-fprint…, -fls), follows links (-L, -follow) or takes starting points from a
// file (-files0-from) asks.

import { REASONS, type ValueKind } from "./option_table.ts";
import { type JudgeContext, type Judgement, judgeValue, type ProgramRule } from "./judge.ts";

type Primary = { args: 0 | 1; value?: ValueKind; asks?: string };

const FLAG: Primary = { args: 0 };
const TEXT: Primary = { args: 1, value: "text" };
const PATTERN: Primary = { args: 1, value: "pattern" };
const PATH: Primary = { args: 1, value: "path" };
const RUNS: Primary = { args: 0, asks: "runs other programs" };
const WRITES: Primary = { args: 0, asks: "writes files" };

const PRIMARIES: Readonly<Record<string, Primary>> = {
  // options
  "-daystart": FLAG,
  "-depth": FLAG,
  "-d": FLAG,
  "-ignore_readdir_race": FLAG,
  "-noignore_readdir_race": FLAG,
  "-maxdepth": TEXT,
  "-mindepth": TEXT,
  "-mount": FLAG,
  "-xdev": FLAG,
  "-noleaf": FLAG,
  "-nowarn": FLAG,
  "-warn": FLAG,
  "-regextype": TEXT,
  "-help": FLAG,
  "--help": FLAG,
  "-version": FLAG,
  "--version": FLAG,
  "-follow": { args: 0, asks: REASONS["follows-links"]! },
  "-files0-from": { args: 0, asks: "reads its starting points from a file, which scv cannot check" },
  // tests
  "-amin": TEXT,
  "-atime": TEXT,
  "-cmin": TEXT,
  "-ctime": TEXT,
  "-mmin": TEXT,
  "-mtime": TEXT,
  "-used": TEXT,
  "-anewer": PATH,
  "-cnewer": PATH,
  "-newer": PATH,
  "-samefile": PATH,
  "-context": TEXT,
  "-empty": FLAG,
  "-executable": FLAG,
  "-readable": FLAG,
  "-writable": FLAG,
  "-false": FLAG,
  "-true": FLAG,
  "-fstype": TEXT,
  "-gid": TEXT,
  "-uid": TEXT,
  "-group": TEXT,
  "-user": TEXT,
  "-nogroup": FLAG,
  "-nouser": FLAG,
  "-inum": TEXT,
  "-links": TEXT,
  "-perm": TEXT,
  "-size": TEXT,
  "-type": TEXT,
  "-xtype": TEXT,
  "-name": PATTERN,
  "-iname": PATTERN,
  "-path": PATTERN,
  "-ipath": PATTERN,
  "-wholename": PATTERN,
  "-iwholename": PATTERN,
  "-regex": PATTERN,
  "-iregex": PATTERN,
  "-lname": PATTERN,
  "-ilname": PATTERN,
  // actions
  "-print": FLAG,
  "-print0": FLAG,
  "-printf": { args: 1, value: "format" },
  "-ls": FLAG,
  "-prune": FLAG,
  "-quit": FLAG,
  "-delete": { args: 0, asks: "deletes files" },
  "-exec": RUNS,
  "-execdir": RUNS,
  "-ok": RUNS,
  "-okdir": RUNS,
  "-fls": WRITES,
  "-fprint": WRITES,
  "-fprint0": WRITES,
  "-fprintf": WRITES,
  // operators
  "(": FLAG,
  ")": FLAG,
  "!": FLAG,
  ",": FLAG,
  "-not": FLAG,
  "-a": FLAG,
  "-and": FLAG,
  "-o": FLAG,
  "-or": FLAG,
};

/** `-newerXY REF` with X one of a B c m and Y one of those or t (then REF is a time, judged as a path anyway). */
const NEWER_XY = /^-newer[aBcm][aBcmt]$/;

function startsExpression(word: string): boolean {
  return word.startsWith("-") || ["(", ")", "!", ","].includes(word);
}

function judgeFind(args: readonly string[], context: JudgeContext): Judgement {
  let index = 0;
  for (; index < args.length; index += 1) {
    const word = args[index]!;
    if (word === "-H" || word === "-P") continue;
    if (word === "-L") return `uses find -L, which ${REASONS["follows-links"]}`;
    if (word === "-D" || word.startsWith("-O")) return `uses find ${word}, which is not on the read-only list`;
    break;
  }
  for (; index < args.length && !startsExpression(args[index]!); index += 1) {
    const verdict = context.checkPath(args[index]!);
    if (verdict !== undefined) return verdict;
  }
  while (index < args.length) {
    const word = args[index]!;
    index += 1;
    const primary = Object.hasOwn(PRIMARIES, word) ? PRIMARIES[word]! : NEWER_XY.test(word) ? PATH : undefined;
    if (primary === undefined) return `uses find ${word}, which scv does not know as harmless`;
    if (primary.asks !== undefined) return `uses find ${word}, which ${primary.asks}`;
    if (primary.args === 0) continue;
    const value = args[index];
    if (value === undefined) return `uses find ${word} without its argument`;
    index += 1;
    const verdict = judgeValue(primary.value ?? "text", value, context);
    if (verdict !== undefined) return `uses find ${word} ${value}: ${verdict}`;
  }
  return undefined;
}

export const find: ProgramRule = { kind: "custom", judge: judgeFind };
