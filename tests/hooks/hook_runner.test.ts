// A session's hooks (issue 30): matchers on the whole tool name, project hooks skipped until the folder is trusted,
// hooks of one event side by side, and every run reported with its verdict.
import { mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { HookConfig } from "../../lib/config/index.ts";
import { type HookRun, HookRunner } from "../../lib/hooks/index.ts";

let folder: string;

beforeEach(async () => {
  folder = await realpath(await mkdtemp(path.join(tmpdir(), "scv-hooks-")));
});

afterEach(async () => {
  await rm(folder, { recursive: true, force: true });
});

const hook = (fields: Partial<HookConfig> & Pick<HookConfig, "event" | "command">): HookConfig => ({
  timeout_sec: 30,
  origin: "user",
  file: "/home/u/.scv/config.toml",
  ...fields,
});

function runner(hooks: HookConfig[], trusted = false) {
  const runs: HookRun[] = [];
  const hooksRunner = new HookRunner({
    hooks,
    trusted,
    cwd: folder,
    env: { PATH: process.env.PATH },
    common: () => ({ session_id: "s-1", permission_mode: "on-risk" }),
    onRun: (run) => void runs.push(run),
  });
  return { hooksRunner, runs };
}

describe("HookRunner", () => {
  it("runs the hooks whose matcher takes the whole tool name, with the input they expect", async () => {
    const { hooksRunner, runs } = runner([
      hook({ event: "PreToolUse", matcher: "bash|write", command: "cat" }),
      hook({ event: "PreToolUse", matcher: "ba", command: "echo partial" }),
      hook({ event: "PreToolUse", command: "echo every-tool" }),
      hook({ event: "PostToolUse", command: "echo post" }),
    ]);
    expect(hooksRunner.has("PreToolUse", "read")).toBe(true);
    const results = await hooksRunner.run("PreToolUse", { tool_name: "bash", tool_input: { command: "ls" } }, {
      subject: "bash",
      callId: "call-1",
    });
    expect(results.map((result) => result.hook.command).sort()).toEqual(["cat", "echo every-tool"]);
    expect(runs.map((run) => [run.command, run.callId, run.exitCode]).sort()).toEqual([
      ["cat", "call-1", 0],
      ["echo every-tool", "call-1", 0],
    ]);
  });

  it("gives each hook the JSON input on stdin: session, working folder, event and the event's fields", async () => {
    const { hooksRunner } = runner([
      hook({
        event: "UserPromptSubmit",
        // Plain stdout is context; JSON stdout would be read as the hook's answer.
        command: "printf 'input: '; cat",
      }),
    ]);
    const [result] = await hooksRunner.run("UserPromptSubmit", { prompt: "fix the bug" });
    expect(JSON.parse(result!.verdict.context!.slice("input: ".length))).toEqual({
      session_id: "s-1",
      permission_mode: "on-risk",
      cwd: folder,
      hook_event_name: "UserPromptSubmit",
      prompt: "fix the bug",
    });
  });

  it("lists a project's hooks as skipped and never runs them until the folder is trusted", async () => {
    const { hooksRunner, runs } = runner([
      hook({ event: "Stop", command: "echo user" }),
      hook({ event: "Stop", command: "echo project", origin: "project", file: "/repo/.scv/config.toml" }),
    ]);
    expect(hooksRunner.listed.map((listed) => [listed.command, listed.status])).toEqual([
      ["echo user", "active"],
      ["echo project", "skipped"],
    ]);
    await hooksRunner.run("Stop", {});
    expect(runs.map((run) => run.command)).toEqual(["echo user"]);
    hooksRunner.trusted = true;
    await hooksRunner.run("Stop", {});
    expect(runs.map((run) => run.command).sort()).toEqual(["echo project", "echo user", "echo user"]);
  });

  it("runs one event's hooks side by side", async () => {
    const marker = path.join(folder, "second-started");
    // The first hook ends only once the second has started: run one after the other, this would hang.
    const { hooksRunner } = runner([
      hook({ event: "Stop", command: `while [ ! -e ${marker} ]; do sleep 0.05; done; echo first` }),
      hook({ event: "Stop", command: `touch ${marker}; echo second` }),
    ]);
    const results = await hooksRunner.run("Stop", {});
    expect(results.map((result) => result.run.exitCode)).toEqual([0, 0]);
  });
});
