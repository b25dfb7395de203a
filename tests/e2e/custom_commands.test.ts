// Custom commands through the real CLI (issue 30): files in `$SCV_HOME/commands/` and `<workspace>/.scv/commands/`
// listed in session.started, run by `scv exec "/name args"` with the arguments in place; a prompt that starts with
// `/` but names no command is sent as typed.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse } from "../support/fake_provider.ts";
import type { ServerEvent } from "../support/server_client.ts";
import { HANG_MS } from "../support/wait.ts";

const harness = useCliHarness();

function events(stdout: string): ServerEvent[] {
  return stdout.trim().split("\n").map((line) => JSON.parse(line));
}

async function commandFiles(): Promise<void> {
  const user = join(harness.sandbox.home, "commands");
  const project = join(harness.sandbox.workspace, ".scv", "commands");
  await mkdir(join(project, "git"), { recursive: true });
  await mkdir(user, { recursive: true });
  await writeFile(join(user, "review.md"), "---\ndescription: the user's review\n---\nUser review of $ARGUMENTS\n");
  await writeFile(
    join(user, "explain.md"),
    "---\ndescription: Explain code\nargument-hint: <file>\n---\nExplain $1.\n",
  );
  await writeFile(join(project, "review.md"), "Project review of $1, focus on $2.\n");
  await writeFile(join(project, "git", "commit.md"), "Write a commit message.\n");
}

const userInput = (index: number): unknown => harness.provider.requests[index]!.body.input[0];

// Only a hang-catcher: each test starts the CLI several times, one after another, which takes long on a loaded machine.
const SEVERAL_RUNS = { timeout: HANG_MS };

describe("custom commands", SEVERAL_RUNS, () => {
  it("lists both layers in session.started, the project's winning a clash", async () => {
    await commandFiles();
    harness.provider.push(textResponse(["ok"]));
    const result = await harness.start(["exec", "--json", "hi"]).done;
    expect(result.code).toBe(0);
    const started = events(result.stdout).find((event) => event.type === "session.started")!;
    expect(started.commands).toEqual([
      { name: "explain", description: "Explain code", argument_hint: "<file>", origin: "user" },
      { name: "git:commit", origin: "project" },
      { name: "review", origin: "project", overrides: true },
    ]);
  });

  it("runs a project command and a user command with their arguments in place", async () => {
    await commandFiles();
    harness.provider.push(textResponse(["ok"]), textResponse(["ok"]), textResponse(["ok"]));
    const project = await harness.start(["exec", "--json", '/review "src/a b.ts" speed']).done;
    expect(project.code).toBe(0);
    expect(userInput(0)).toEqual({ role: "user", content: "Project review of src/a b.ts, focus on speed.\n" });
    const started = events(project.stdout).find((event) => event.type === "turn.started")!;
    expect(started.command).toEqual({ name: "review", arguments: '"src/a b.ts" speed' });
    expect((await harness.start(["exec", "/explain lib/x.ts"]).done).code).toBe(0);
    expect(userInput(1)).toEqual({ role: "user", content: "Explain lib/x.ts.\n" });
    expect((await harness.start(["exec", "/git:commit"]).done).code).toBe(0);
    expect(userInput(2)).toEqual({ role: "user", content: "Write a commit message.\n" });
  });

  it("sends a prompt that names no command as typed", async () => {
    await commandFiles();
    harness.provider.push(textResponse(["ok"]));
    const result = await harness.start(["exec", "--json", "/usr/bin/env is missing"]).done;
    expect(result.code).toBe(0);
    expect(userInput(0)).toEqual({ role: "user", content: "/usr/bin/env is missing" });
    expect(events(result.stdout).find((event) => event.type === "turn.started")!.command).toBeUndefined();
  });
});
