// Issue 30 in `scv chat` (plain line mode, through the real CLI): custom commands in /help and as prompts, /status
// with the instruction files and hooks, /init, and a project's hooks skipped (and said so) until /trust.
import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";
import { HANG_MS } from "../support/wait.ts";

const harness = useCliHarness();

function chat(lines: string[]) {
  return harness.start(["chat"], { stdin: `${lines.join("\n")}\n` }).done;
}

/** The text without style codes, each run of white space one space (notes wrap at the terminal's width). */
// deno-lint-ignore no-control-regex -- the style codes are what this removes
const flat = (text: string): string => text.replace(/\x1b\[[0-9;]*m/g, "").replace(/\s+/g, " ");

const lastInput = (index: number): unknown => harness.provider.requests[index]!.body.input.at(-1);

// Only a hang-catcher: each test starts the CLI several times, one after another, which takes long on a loaded machine.
const SEVERAL_RUNS = { timeout: HANG_MS };

describe("custom commands, /status and /init in chat", SEVERAL_RUNS, () => {
  it("lists custom commands in /help, runs one with its arguments, and /status shows the instruction files", async () => {
    const commands = join(harness.sandbox.workspace, ".scv", "commands");
    await mkdir(commands, { recursive: true });
    await writeFile(
      join(commands, "fix.md"),
      "---\ndescription: Fix an issue\nargument-hint: <issue>\n---\nFix issue #$1 ($ARGUMENTS).\n",
    );
    await writeFile(join(harness.sandbox.workspace, "AGENTS.md"), "Use tabs.\n");
    harness.provider.push(textResponse(["fixed"]), textResponse(["written"]));
    const result = await chat(["/help", "/fix 12 urgent", "/status", "/init", "/exit"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/\/fix <issue> +Fix an issue \(project\)/);
    expect(lastInput(0)).toEqual({ role: "user", content: "Fix issue #12 (12 urgent).\n" });
    expect(result.stdout).toContain(`${join(harness.sandbox.workspace, "AGENTS.md")} · 10 bytes`);
    expect(result.stdout).toContain("custom commands: /fix");
    expect(JSON.stringify(lastInput(1))).toContain("Write an AGENTS.md file");
  });
});

describe("project hooks in chat", SEVERAL_RUNS, () => {
  it("says the hooks are skipped, runs none until /trust, then runs and shows them", async () => {
    const marker = join(harness.sandbox.workspace, "hook-ran");
    await harness.sandbox.writeProjectConfig(
      `[[hooks.UserPromptSubmit]]\ncommand = ${JSON.stringify(`touch ${marker}`)}\n`,
    );
    harness.provider.push(textResponse(["one"]), textResponse(["two"]));
    const result = await chat(["first", "/status", "/trust", "second", "/exit"]);
    expect(result.code).toBe(0);
    const [before, after] = flat(result.stdout).split("› second");
    expect(before).toContain("has 1 hook(s), which run commands: they are skipped");
    expect(before).toContain("UserPromptSubmit touch");
    expect(before).toContain("skipped: the folder is not trusted");
    expect(before).not.toContain("↪ hook");
    expect(after).toContain("↪ hook UserPromptSubmit touch");
    expect(existsSync(marker)).toBe(true);
    expect(await readFile(join(harness.sandbox.home, "config.toml"), "utf8")).toContain('trust_level = "trusted"');
  });

  it("asks no more once the user answered /trust no", async () => {
    await harness.sandbox.writeProjectConfig('[[hooks.SessionStart]]\ncommand = "true"\n');
    const first = await chat(["/trust no", "/exit"]);
    expect(flat(first.stdout)).toContain("they are skipped");
    const second = await chat(["/exit"]);
    expect(second.code).toBe(0);
    expect(flat(second.stdout)).not.toContain("they are skipped");
  });
});
