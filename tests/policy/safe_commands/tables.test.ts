// The option tables, checked two ways. Properties: every prefix of an option that asks also asks, and every bundle
// holding a letter that asks asks, whatever harmless letters surround it. Conformance: for each GNU program
// installed here, every long option the binary itself knows (its getopt table, hidden ones included, as printed
// for the ambiguous `--=x`) is on scv's table, so a prefix can never resolve to an option scv has not judged; and
// every option scv says takes a required argument really does, so the next word is never a file scv skipped.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { readOnlyVerdict } from "../../../lib/policy/safe_command.ts";
import {
  GIT_SUBCOMMANDS,
  type OptionSpec,
  READ_ONLY_PROGRAMS,
  type TableRule,
} from "../../../lib/policy/safe_commands/index.ts";
import { HANG_MS } from "../../support/wait.ts";

const workspace = mkdtempSync(join(tmpdir(), "scv-tables-"));
afterAll(() => rmSync(workspace, { recursive: true, force: true }));

/** Every table with the command words that reach it. */
const TABLES: Array<{ command: string; rule: TableRule }> = [
  ...Object.entries(READ_ONLY_PROGRAMS).flatMap(([name, rule]) =>
    rule.kind === "table" ? [{ command: name, rule }] : []
  ),
  ...Object.entries(GIT_SUBCOMMANDS).map(([name, rule]) => ({ command: `git ${name}`, rule })),
];

const asks = (command: string) => !readOnlyVerdict(command, workspace).safe;

describe("every table", () => {
  it("spells each letter and each long name once", () => {
    for (const { command, rule } of TABLES) {
      const letters = rule.table.options.flatMap((option) => [...option.letters]);
      const names = rule.table.options.flatMap((option) => option.names);
      expect(new Set(letters).size, command).toBe(letters.length);
      expect(new Set(names).size, command).toBe(names.length);
    }
  });

  it("asks for every prefix of a long option that asks, with or without a value", () => {
    for (const { command, rule } of TABLES) {
      const exactHarmless = new Set(
        rule.table.options.filter((option) => option.asks === undefined).flatMap((option) => option.names),
      );
      for (const option of rule.table.options.filter((candidate) => candidate.asks !== undefined)) {
        for (const name of option.names) {
          for (let length = 1; length <= name.length; length += 1) {
            const prefix = name.slice(0, length);
            // An exact harmless name wins over a longer option that merely starts with it, as in getopt_long.
            if (exactHarmless.has(prefix)) continue;
            expect(asks(`${command} --${prefix} x f`), `${command} --${prefix}`).toBe(true);
            expect(asks(`${command} --${prefix}=x f`), `${command} --${prefix}=x`).toBe(true);
          }
        }
      }
    }
  });

  it("asks for every bundle that holds a letter that asks", () => {
    const tables = TABLES.filter(({ rule }) => rule.table.options.some((option) => isRefusedLetter(option)));
    fc.assert(
      fc.property(
        fc.constantFrom(...tables),
        fc.array(fc.nat(), { maxLength: 6 }),
        fc.nat(),
        fc.nat(),
        ({ command, rule }, picks, refusedPick, position) => {
          const harmless = rule.table.options
            .filter((option) => option.asks === undefined && option.argument === "none")
            .flatMap((option) => [...option.letters]);
          const refused = rule.table.options.filter(isRefusedLetter).flatMap((option) => [...option.letters]);
          const letters = harmless.length === 0 ? [] : picks.map((pick) => harmless[pick % harmless.length]!);
          letters.splice(position % (letters.length + 1), 0, refused[refusedPick % refused.length]!);
          const word = `-${letters.join("")}`;
          expect(asks(`${command} ${word} x f`), `${command} ${word}`).toBe(true);
        },
      ),
      { numRuns: 400 },
    );
  });

  it("never throws, whatever the words", () => {
    const word = fc.oneof(
      fc.string({ maxLength: 8 }).map((text) => `'${text.replaceAll("'", "")}'`),
      fc.constantFrom("-", "--", "-n", "--x=", "-5", "+1", "(", "!", "-exec", ":", "HEAD:x"),
    );
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(READ_ONLY_PROGRAMS)),
        fc.array(word, { maxLength: 6 }),
        (program, words) => {
          expect(typeof readOnlyVerdict([program, ...words].join(" "), workspace).safe).toBe("boolean");
        },
      ),
      { numRuns: 500 },
    );
  });
});

function isRefusedLetter(option: OptionSpec): boolean {
  return option.asks !== undefined && option.letters !== "";
}

/** Runs an installed program in an empty directory with no input and the C locale's messages. */
function runInstalled(
  program: string,
  args: string[],
  options: { cwd?: string; env?: Record<string, string> } = {},
): Promise<{ status: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd: options.cwd ?? workspace,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C", ...options.env },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.once("error", reject);
    child.once("close", (status) => resolve({ status, stderr }));
  });
}

/** The long options a getopt_long program knows: glibc lists them all for the ambiguous, nameless `--=x`. */
function installedLongOptions(program: string): string[] | undefined {
  const { stderr } = spawnSync(program, ["--=x"], { cwd: workspace, input: "", encoding: "utf8", env: C_LOCALE });
  const list = /is ambiguous; possibilities:(.*)/.exec(stderr)?.[1];
  return list === undefined ? undefined : [...list.matchAll(/'--([^']+)'/g)].map((match) => match[1]!);
}

const C_LOCALE = { PATH: process.env.PATH ?? "/usr/bin:/bin", LC_ALL: "C" };

// Each check below starts a few dozen processes; they run side by side, and the generous deadline only catches a
// hang on a loaded machine.
const MANY_PROCESSES = { timeout: HANG_MS };

const GETOPT_PROGRAMS = [
  "ls",
  "cat",
  "head",
  "tail",
  "wc",
  "stat",
  "du",
  "df",
  "uname",
  "date",
  "whoami",
  "sort",
  "uniq",
  "cut",
  "nl",
  "pwd",
  "grep",
  "sed",
  "file",
];

describe.each(GETOPT_PROGRAMS)("%s's table against the installed binary", (program) => {
  const rule = READ_ONLY_PROGRAMS[program] as TableRule;
  const known = installedLongOptions(program);

  it.skipIf(known === undefined)("holds every long option the binary knows", () => {
    const ours = new Set(rule.table.options.flatMap((option) => option.names));
    expect(known!.filter((name) => !ours.has(name))).toEqual([]);
  });

  it.skipIf(known === undefined)(
    "marks an argument required only where the binary requires one",
    MANY_PROCESSES,
    async () => {
      const checks: Array<Promise<void>> = [];
      for (const option of rule.table.options.filter((candidate) => candidate.argument === "required")) {
        for (const name of option.names.filter((candidate) => known!.includes(candidate))) {
          checks.push(
            runInstalled(program, [`--${name}`]).then(({ stderr }) => {
              expect(stderr, `${program} --${name}`).toContain("requires an argument");
            }),
          );
        }
        for (const letter of option.letters) {
          checks.push(
            runInstalled(program, [`-${letter}`]).then(({ stderr }) => {
              if (stderr.includes("invalid option")) return; // a newer program's letter (cut -O on 9.1)
              expect(stderr, `${program} -${letter}`).toContain("requires an argument");
            }),
          );
        }
      }
      await Promise.all(checks);
    },
  );
});

describe("git's tables against the installed git", () => {
  const installed = spawnSync("git", ["--version"], { encoding: "utf8" }).status === 0;
  /** git branch's --contains and friends take the next word, or default to HEAD when they come last. */
  const DEFAULT_WHEN_LAST = new Set([
    "branch --contains",
    "branch --no-contains",
    "branch --merged",
    "branch --no-merged",
  ]);

  it.skipIf(!installed)("marks an argument required only where git fails without one", MANY_PROCESSES, async () => {
    const repository = join(workspace, "repository");
    const env = { HOME: workspace, GIT_PAGER: "cat" };
    spawnSync("git", ["init", "-q", repository]);
    const identity = ["-c", "user.email=t@example.invalid", "-c", "user.name=t"];
    spawnSync("git", [...identity, "commit", "-q", "--allow-empty", "-m", "one"], { cwd: repository, env });
    const checks: Array<Promise<void>> = [];
    for (const [sub, rule] of Object.entries(GIT_SUBCOMMANDS)) {
      for (const option of rule.table.options.filter((candidate) => candidate.argument === "required")) {
        const words = [
          ...option.names.map((name) => `--${name}`),
          ...[...option.letters].map((letter) => `-${letter}`),
        ];
        for (const word of words.filter((candidate) => !DEFAULT_WHEN_LAST.has(`${sub} ${candidate}`))) {
          checks.push(
            runInstalled("git", [sub, word], { cwd: repository, env }).then(({ status }) => {
              expect(status, `git ${sub} ${word}`).toEqual(expect.any(Number));
              expect(status, `git ${sub} ${word}`).not.toBe(0);
            }),
          );
        }
      }
    }
    await Promise.all(checks);
  });
});
