// Project instructions through the real CLI (issue 30): `scv exec` started in a subfolder of a repository works on
// the repository root and reads the global AGENTS.md, then each folder down to the working folder (an override
// replacing its folder's AGENTS.md, a fallback name where there is none), bounded by project_doc_max_bytes.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerEvent } from "../support/server_client.ts";
import { HANG_MS } from "../support/wait.ts";

const harness = useCliHarness();

function events(stdout: string): ServerEvent[] {
  return stdout.trim().split("\n").map((line) => JSON.parse(line));
}

/** A repository with a working folder two levels down, and its instruction files. */
async function repository(): Promise<{ repo: string; app: string }> {
  const repo = join(harness.sandbox.workspace, "repo");
  const app = join(repo, "pkg", "app");
  await mkdir(join(repo, ".git"), { recursive: true });
  await mkdir(app, { recursive: true });
  await writeFile(join(harness.sandbox.home, "AGENTS.md"), "rule-global\n");
  await writeFile(join(repo, "AGENTS.md"), "rule-root\n");
  await writeFile(join(repo, "pkg", "AGENTS.md"), "rule-pkg-plain\n");
  await writeFile(join(repo, "pkg", "AGENTS.override.md"), "rule-pkg-override\n");
  await writeFile(join(app, "CLAUDE.md"), "rule-app-claude\n");
  return { repo, app };
}

// Only a hang-catcher: each test starts the CLI several times, one after another, which takes long on a loaded machine.
const SEVERAL_RUNS = { timeout: HANG_MS };

describe("project instructions", SEVERAL_RUNS, () => {
  it("reads global, root, override and fallback in order from a subfolder, on the repository root", async () => {
    const { repo, app } = await repository();
    await harness.sandbox.writeUserConfig('project_doc_fallback_filenames = ["CLAUDE.md"]\n');
    harness.provider.push(textResponse(["ok"]));
    const result = await harness.start(["exec", "--json", "hi"], { cwd: app }).done;
    expect(result.code).toBe(0);
    const started = events(result.stdout).find((event) => event.type === "session.started")!;
    expect(started.cwd).toBe(repo);
    expect(started.working_folder).toBe(app);
    expect(started.instructions).toEqual([
      { path: join(harness.sandbox.home, "AGENTS.md"), scope: "global", bytes: 12, size: 12, truncated: false },
      { path: join(repo, "AGENTS.md"), scope: "project", bytes: 10, size: 10, truncated: false },
      { path: join(repo, "pkg", "AGENTS.override.md"), scope: "project", bytes: 18, size: 18, truncated: false },
      { path: join(app, "CLAUDE.md"), scope: "project", bytes: 16, size: 16, truncated: false },
    ]);
    const instructions: string = harness.provider.requests[0]!.body.instructions;
    const order = ["rule-global", "rule-root", "rule-pkg-override", "rule-app-claude"].map((rule) =>
      instructions.indexOf(rule)
    );
    expect(order.every((at, index) => at >= 0 && (index === 0 || at > order[index - 1]!))).toBe(true);
    expect(instructions).not.toContain("rule-pkg-plain");
    expect(instructions).toContain(`Current working directory: ${repo}\n`);
    expect(instructions).toContain(`The user works in ${app}`);
  });

  it("reads no fallback name unless configured, and a project file cannot name one", async () => {
    const { app } = await repository();
    harness.provider.push(textResponse(["ok"]));
    const result = await harness.start(["exec", "hi"], { cwd: app }).done;
    expect(result.code).toBe(0);
    expect(harness.provider.requests[0]!.body.instructions).not.toContain("rule-app-claude");
    await harness.sandbox.writeProjectConfig('project_doc_fallback_filenames = [".env"]\n');
    const refused = await harness.start(["exec", "hi"]).done;
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      `project configuration ${join(harness.sandbox.workspace, ".scv", "config.toml")} cannot set ` +
        "[project_doc_fallback_filenames]",
    );
  });

  it("cuts at project_doc_max_bytes and says what was cut and left out", async () => {
    const { repo, app } = await repository();
    await harness.sandbox.writeUserConfig(
      'project_doc_max_bytes = 16\nproject_doc_fallback_filenames = ["CLAUDE.md"]\n',
    );
    harness.provider.push(textResponse(["ok"]));
    const result = await harness.start(["exec", "--json", "hi"], { cwd: app }).done;
    expect(result.code).toBe(0);
    const started = events(result.stdout).find((event) => event.type === "session.started")!;
    expect(started.instructions.map((file: { bytes: number; truncated: boolean }) => [file.bytes, file.truncated]))
      .toEqual([[12, false], [4, true], [0, true], [0, true]]);
    const instructions: string = harness.provider.requests[0]!.body.instructions;
    expect(instructions).toContain(
      `[${join(repo, "AGENTS.md")} cut by project_doc_max_bytes = 16: 4 of 10 bytes kept]`,
    );
    expect(instructions).toContain(`[${join(app, "CLAUDE.md")} left out: project_doc_max_bytes = 16 was reached]`);
    expect(instructions).not.toContain("rule-root");
  });

  it("continues the repository's session from any of its folders (sessions belong to the root)", async () => {
    const { repo, app } = await repository();
    harness.provider.push(textResponse(["first"]), textResponse(["second"]));
    const first = await harness.start(["exec", "--json", "remember 42"], { cwd: repo }).done;
    expect(first.code).toBe(0);
    const second = await harness.start(["exec", "--json", "--continue", "what number?"], { cwd: app }).done;
    expect(second.code).toBe(0);
    const ids = [first, second].map((run) =>
      events(run.stdout).find((event) => event.type === "session.started")!.session_id
    );
    expect(ids[1]).toBe(ids[0]);
    expect(JSON.stringify(harness.provider.requests[1]!.body.input)).toContain("remember 42");
  });
  it("joins a nested folder's AGENTS.md when a tool first touches it, announced once", async () => {
    const { repo } = await repository();
    await mkdir(join(repo, "lib", "db"), { recursive: true });
    await writeFile(join(repo, "lib", "db", "AGENTS.md"), "rule-db: migrations are append-only\n");
    await writeFile(join(repo, "lib", "db", "schema.sql"), "create table t (id int);\n");
    const read = (id: string) => ({ call_id: id, name: "read", arguments: { path: "lib/db/schema.sql" } });
    harness.provider.push(
      toolCallResponse([read("r1")]),
      toolCallResponse([read("r2")]),
      textResponse(["ok"]),
    );
    const result = await harness.start(["exec", "--json", "look at the schema"], { cwd: repo }).done;
    expect(result.code).toBe(0);
    expect(harness.provider.requests[0]!.body.instructions).not.toContain("rule-db");
    const joined = events(result.stdout).filter((event) => event.type === "instructions.joined");
    expect(joined).toEqual([
      expect.objectContaining({ call_id: "r1", path: join(repo, "lib", "db", "AGENTS.md"), bytes: 36 }),
    ]);
    const outputs = (index: number): string[] =>
      harness.provider.requests[index]!.body.input
        .filter((item: { type?: string }) => item.type === "function_call_output")
        .map((item: { output: string }) => item.output);
    expect(outputs(1)[0]).toContain("rule-db: migrations are append-only");
    expect(outputs(2)[1]).not.toContain("rule-db");
  });
});
