// git: a few global options, then one of the read-only subcommands below, each with its own table. git's own
// option parser accepts abbreviations for some subcommands and not others, so every long option here must be
// spelled out: an abbreviation asks. Any operand holding a `:` asks (`HEAD:.env`, `:.env`, `:0:.env`, a range
// ending in one): that syntax prints a file's staged or committed content. Options before the subcommand other
// than the few below (-C, -c, --git-dir, --exec-path, …) change what git runs or where, and ask.

import { optionName, optionTable } from "./option_table.ts";
import {
  type JudgeContext,
  type Judgement,
  judgeRevision,
  judgeWithTable,
  type ProgramRule,
  type TableRule,
} from "./judge.ts";
import type { ParsedOption } from "./parse_options.ts";

const GIT_TABLE = { abbreviations: false } as const;

/** Options of the diff machinery (diff.c), shared by diff, log and show. */
const DIFF_OPTIONS = `
  -p -u --patch
  -s --no-patch
  -U --unified [N]
  --output FILE ! writes
  --output-indicator-new CHAR
  --output-indicator-old CHAR
  --output-indicator-context CHAR
  --raw
  --patch-with-raw
  --patch-with-stat
  -t
  -z
  --indent-heuristic
  --no-indent-heuristic
  --minimal
  --patience
  --histogram
  --anchored TEXT
  --diff-algorithm NAME
  --stat [SPEC]
  --stat-width N : number
  --stat-name-width N : number
  --stat-count N : number
  --stat-graph-width N : number
  --compact-summary
  --numstat
  --shortstat
  -X --dirstat [PARAMS]
  --cumulative
  --dirstat-by-file [PARAMS]
  --summary
  --name-only
  --name-status
  --submodule [FORMAT]
  --color [WHEN]
  --no-color
  --color-moved [MODE]
  --no-color-moved
  --color-moved-ws MODES
  --no-color-moved-ws
  --word-diff [MODE]
  --word-diff-regex REGEX : pattern
  --color-words [REGEX]
  --no-renames
  --rename-empty
  --no-rename-empty
  --check
  --ws-error-highlight KIND
  --full-index
  --binary
  --abbrev [N]
  --no-abbrev
  -B --break-rewrites [N]
  -M --find-renames [N]
  -C --find-copies [N]
  --find-copies-harder
  -D --irreversible-delete
  -l N : number
  --diff-filter FILTER
  -S STRING : pattern
  -G REGEX : pattern
  --find-object OBJECT : revision
  --pickaxe-all
  --pickaxe-regex
  -O ORDERFILE : path
  --skip-to FILE
  --rotate-to FILE
  -R
  --relative [PATH]
  --no-relative
  -a --text
  --ignore-cr-at-eol
  --ignore-space-at-eol
  -b --ignore-space-change
  -w --ignore-all-space
  --ignore-blank-lines
  -I --ignore-matching-lines REGEX : pattern
  --inter-hunk-context N : number
  -W --function-context
  --exit-code
  --quiet
  --ext-diff ! runs a diff program named in the repository's configuration
  --no-ext-diff
  --textconv ! runs conversion programs named in the repository's configuration
  --no-textconv
  --ignore-submodules [WHEN]
  --src-prefix PREFIX
  --dst-prefix PREFIX
  --no-prefix
  --default-prefix
  --line-prefix PREFIX
  --ita-invisible-in-index
  --ita-visible-in-index
  -c --cc
  --dd
  --combined-all-paths
`;

/** Revision walking and log formatting (revision.c, builtin/log.c), for log and show. */
const LOG_OPTIONS = `
  -n --max-count N : number
  --skip N : number
  --since --after DATE
  --until --before DATE
  --since-as-filter DATE
  --author PATTERN : pattern
  --committer PATTERN : pattern
  --grep PATTERN : pattern
  --grep-reflog PATTERN : pattern
  --all-match
  --invert-grep
  -i --regexp-ignore-case
  --basic-regexp
  -E --extended-regexp
  -F --fixed-strings
  -P --perl-regexp
  --remove-empty
  --merges
  --no-merges
  --min-parents N : number
  --max-parents N : number
  --no-min-parents
  --no-max-parents
  --first-parent
  --exclude-first-parent-only
  --not
  --all
  --branches [PATTERN]
  --tags [PATTERN]
  --remotes [PATTERN]
  --glob PATTERN
  --exclude PATTERN
  --reflog
  --single-worktree
  --ignore-missing
  --cherry-mark
  --cherry-pick
  --left-only
  --right-only
  --cherry
  -g --walk-reflogs
  --merge
  --boundary
  --simplify-by-decoration
  --show-pulls
  --full-history
  --dense
  --sparse
  --simplify-merges
  --ancestry-path [COMMIT] : revision
  --date-order
  --author-date-order
  --topo-order
  --reverse
  --no-walk [HOW]
  --do-walk
  --pretty [FORMAT] : format
  --format FORMAT : format
  --abbrev-commit
  --no-abbrev-commit
  --oneline
  --encoding ENCODING
  --expand-tabs [N]
  --no-expand-tabs
  --notes [REF]
  --no-notes
  --show-notes [REF]
  --standard-notes
  --no-standard-notes
  --show-signature ! runs the signature program named in the repository's configuration
  --relative-date
  --date FORMAT : format
  --parents
  --children
  --left-right
  --graph
  --show-linear-break [BARRIER]
  --remerge-diff
  -m
  -r
  --diff-merges FORMAT
  --no-diff-merges
  --decorate [HOW]
  --no-decorate
  --decorate-refs PATTERN
  --decorate-refs-exclude PATTERN
  --source
  --clear-decorations
  --mailmap
  --no-mailmap
  --use-mailmap
  --no-use-mailmap
  --log-size
  --follow
  --full-diff
  -L RANGE ! names a file inside its argument
`;

/** Each operand is a revision (no `:`) or a path (inside the workspace, not secret-like): judged as both. */
function revisionsOrPaths(operands: readonly string[], context: JudgeContext): Judgement {
  for (const operand of operands) {
    const verdict = judgeRevision(operand) ?? context.checkPath(operand);
    if (verdict !== undefined) return verdict;
  }
  return undefined;
}

const log: TableRule = {
  kind: "table",
  table: optionTable(DIFF_OPTIONS + LOG_OPTIONS, { ...GIT_TABLE, numericWords: true }),
  operands: (operands, _options, context) => revisionsOrPaths(operands, context),
};

const show: TableRule = { ...log };

const diff: TableRule = {
  kind: "table",
  table: optionTable(
    DIFF_OPTIONS + `
    --cached --staged
    --merge-base
    --no-index ! compares any two paths, whole directories included
    -0
    -1 --base
    -2 --ours
    -3 --theirs
  `,
    GIT_TABLE,
  ),
  operands(operands, _options, context) {
    // Outside a repository, or with a path outside it, two operands are a --no-index diff: of two directories it
    // prints every file in them, secrets included.
    if (operands.length === 2 && operands.some((operand) => context.kindOf(operand) === "directory"))
      return "gives git diff two operands, one a directory: outside a repository that compares whole directories";
    return revisionsOrPaths(operands, context);
  },
};

const blame: TableRule = {
  kind: "table",
  table: optionTable(
    `
    -b
    --root
    --show-stats
    --progress
    --no-progress
    --score-debug
    -f --show-name
    -n --show-number
    -p --porcelain
    --line-porcelain
    -c
    -t
    -l
    -s
    -e --show-email
    -w
    --incremental
    --abbrev [N]
    -L RANGE
    -S REVSFILE : path
    --contents FILE : path
    --reverse
    --first-parent
    --encoding ENCODING
    --date FORMAT : format
    -M [N]
    -C [N]
    --ignore-rev REV : revision
    --ignore-revs-file FILE : path
    --color-lines
    --color-by-age
    --minimal
  `,
    GIT_TABLE,
  ),
  operands: (operands, _options, context) => revisionsOrPaths(operands, context),
};

const grep: TableRule = {
  kind: "table",
  table: optionTable(
    `
    --cached
    --no-index ! searches every file, untracked and ignored ones included
    --untracked ! searches untracked files
    --no-exclude-standard ! searches ignored files
    --exclude-standard
    --recurse-submodules
    -a --text
    --textconv ! runs conversion programs named in the repository's configuration
    --no-textconv
    -i --ignore-case
    -I
    --max-depth N : number
    -r --recursive
    --no-recursive
    -w --word-regexp
    -v --invert-match
    -h
    -H
    --full-name
    -E --extended-regexp
    -G --basic-regexp
    -P --perl-regexp
    -F --fixed-strings
    -n --line-number
    --column
    -l --files-with-matches --name-only
    -L --files-without-match
    -O --open-files-in-pager [PAGER] ! runs
    -z --null
    -o --only-matching
    -c --count
    --color [WHEN]
    --no-color
    --break
    --heading
    -p --show-function
    -C --context N : number
    -A --after-context N : number
    -B --before-context N : number
    -W --function-context
    -m --max-count N : number
    --threads N : number
    -f FILE : path
    -e PATTERN : pattern
    --and
    --or
    --not
    --all-match
    -q --quiet
  `,
    { ...GIT_TABLE, numericWords: true },
  ),
  operands(operands, options, context) {
    const patternGiven = options.some((option) => ["-e", "-f"].includes(optionName(option.spec)));
    return revisionsOrPaths(patternGiven ? operands : operands.slice(1), context);
  },
};

const status: TableRule = {
  kind: "table",
  table: optionTable(
    `
    -s --short
    -b --branch
    --show-stash
    --porcelain [VERSION]
    --long
    -v --verbose
    -u --untracked-files [MODE]
    --ignored [MODE]
    --ignore-submodules [WHEN]
    -z
    --column [OPTIONS]
    --no-column
    --ahead-behind
    --no-ahead-behind
    --renames
    --no-renames
    --find-renames [N]
  `,
    GIT_TABLE,
  ),
  operands: (operands, _options, context) => revisionsOrPaths(operands, context),
};

const lsFiles: TableRule = {
  kind: "table",
  table: optionTable(
    `
    -c --cached
    -d --deleted
    -m --modified
    -o --others
    -i --ignored
    -s --stage
    -u --unmerged
    -k --killed
    -z
    -t
    -v
    -f
    --directory
    --no-empty-directory
    --eol
    --deduplicate
    --full-name
    --recurse-submodules
    --debug
    --sparse
    --resolve-undo
    -x --exclude PATTERN : pattern
    -X --exclude-from FILE : path
    --exclude-per-directory NAME
    --exclude-standard
    --error-unmatch
    --with-tree TREE : revision
    --abbrev [N]
    --format FORMAT : format
  `,
    GIT_TABLE,
  ),
  operands: (operands, _options, context) => revisionsOrPaths(operands, context),
};

const revParse: TableRule = {
  kind: "table",
  table: optionTable(
    `
    --show-toplevel
    --show-prefix
    --show-cdup
    --git-dir
    --absolute-git-dir
    --git-common-dir
    --is-inside-work-tree
    --is-inside-git-dir
    --is-bare-repository
    --is-shallow-repository
    --show-superproject-working-tree
    --show-object-format [WHICH]
    --show-ref-format
    --abbrev-ref [MODE]
    --short [N]
    --verify
    -q --quiet
    --symbolic
    --symbolic-full-name
    --all
    --branches [PATTERN]
    --tags [PATTERN]
    --remotes [PATTERN]
    --default REV : revision
    --revs-only
    --no-revs
    --flags
    --no-flags
    --sq
    --local-env-vars
    --path-format FORMAT
  `,
    GIT_TABLE,
  ),
  operands(operands): Judgement {
    for (const operand of operands) {
      const verdict = judgeRevision(operand);
      if (verdict !== undefined) return verdict;
    }
    return undefined;
  },
};

const branch: TableRule = {
  kind: "table",
  table: optionTable(
    `
    -a --all
    -r --remotes
    -l --list
    -v --verbose
    -q --quiet
    --contains COMMIT : revision
    --no-contains COMMIT : revision
    --merged COMMIT : revision
    --no-merged COMMIT : revision
    --points-at OBJECT : revision
    --sort KEY
    --format FORMAT : format
    --color [WHEN]
    --no-color
    --column [OPTIONS]
    --no-column
    --abbrev [N]
    --no-abbrev
    -i --ignore-case
    --show-current
    --omit-empty
    -d --delete ! deletes a branch
    -D ! deletes a branch
    -m --move ! renames a branch
    -M ! renames a branch
    -c --copy ! copies a branch
    -C ! copies a branch
    -f --force ! changes branches
    -u --set-upstream-to UPSTREAM ! changes a branch
    --unset-upstream ! changes a branch
    --edit-description ! opens an editor
    -t --track [HOW] ! changes a branch
    --no-track ! changes a branch
    --create-reflog ! changes a branch
    --recurse-submodules ! changes branches
  `,
    GIT_TABLE,
  ),
  // Without --list an operand creates a branch; with it, operands are name patterns.
  operands(operands, options: readonly ParsedOption[]): Judgement {
    if (operands.length === 0 || options.some((option) => optionName(option.spec) === "--list")) return undefined;
    return "gives git branch an operand without --list, which creates a branch";
  },
};

const SUBCOMMANDS: Readonly<Record<string, TableRule>> = {
  status,
  log,
  diff,
  show,
  "rev-parse": revParse,
  "ls-files": lsFiles,
  blame,
  grep,
  branch,
};

/** Options before the subcommand that change nothing about what git reads or runs. */
const HARMLESS_GLOBAL_OPTIONS = new Set(["--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs"]);

export const git: ProgramRule = {
  kind: "custom",
  judge(args, context) {
    let index = 0;
    while (index < args.length && HARMLESS_GLOBAL_OPTIONS.has(args[index]!)) index += 1;
    const sub = args[index];
    if (sub === undefined) return "runs git without a subcommand";
    if (sub.startsWith("-")) return `uses git ${sub} before the subcommand, which is not on the read-only list`;
    if (!Object.hasOwn(SUBCOMMANDS, sub)) return `runs git ${sub}, which is not on the read-only list`;
    return judgeWithTable(`git ${sub}`, SUBCOMMANDS[sub]!, args.slice(index + 1), context);
  },
};

/** The subcommand tables, for tests. */
export const GIT_SUBCOMMANDS = SUBCOMMANDS;
