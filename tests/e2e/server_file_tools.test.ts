// Issue 15 through the real `scv server --stdio`: edit, apply_patch, grep, glob and list (success and errors), the
// `diff` of approval.requested, the read-only bash list in both directions, and `session.configure`.
import { existsSync } from "node:fs";
import { chmod, mkdir, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient, ServerEvent } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();
const ws = (...parts: string[]) => path.join(harness.sandbox.workspace, ...parts);

function oneCall(name: string, args: unknown): FakeResponse[] {
  return [toolCallResponse([{ call_id: "c1", name, arguments: args }]), textResponse(["done"])];
}

/** Runs one call, approving if asked; returns the approval (if any) and the completion. */
async function run(client: ServerClient, approve = true): Promise<{ approval?: ServerEvent; completed: ServerEvent }> {
  client.turn("go");
  const first = await client.next(["approval.requested", "tool.completed"]);
  let approval: ServerEvent | undefined;
  let completed = first;
  if (first.type === "approval.requested") {
    approval = first;
    client.send({
      type: "approval.resolve",
      request_id: "a",
      session_id: client.sessionId,
      approval_id: first.approval_id,
      approved: approve,
    });
    completed = await client.next("tool.completed");
  }
  await terminal(client);
  return approval === undefined ? { completed } : { approval, completed };
}

async function call(name: string, args: unknown, approve = true, extraArgs: string[] = []) {
  const client = await harness.startServer(oneCall(name, args), { extraArgs });
  const result = await run(client, approve);
  await client.finish();
  return result;
}

describe("edit", () => {
  it("replaces one exact occurrence after an approval that carries the diff, keeping CRLF and the mode", async () => {
    await writeFile(ws("a.txt"), "one\r\ntwo\r\nthree\r\n");
    await chmod(ws("a.txt"), 0o751);
    const { approval, completed } = await call("edit", { path: "a.txt", old_string: "two\n", new_string: "2\n" });
    expect(approval).toMatchObject({ name: "edit", risk: "filesystem" });
    expect(approval!.diff).toContain("-two\n+2\n");
    expect(completed.success).toBe(true);
    expect(completed.output).toContain("Edited a.txt: replaced 1 occurrence");
    expect(completed.output).toContain("@@ -1,3 +1,3 @@");
    expect(await readFile(ws("a.txt"), "utf8")).toBe("one\r\n2\r\nthree\r\n");
    expect((await stat(ws("a.txt"))).mode & 0o777).toBe(0o751);
  });

  it("refuses a string that matches twice, one that is missing, a no-op and a missing file, changing nothing", async () => {
    await writeFile(ws("b.txt"), "x\nx\n");
    let { completed } = await call("edit", { path: "b.txt", old_string: "x", new_string: "y" });
    expect(completed).toMatchObject({ success: false, error: "failed" });
    expect(completed.output).toContain("matches 2 times");
    expect(completed.output).toContain("replace_all");
    ({ completed } = await call("edit", { path: "b.txt", old_string: "zzz", new_string: "y" }));
    expect(completed.output).toMatch(/edit b\.txt: old_string was not found/);
    ({ completed } = await call("edit", { path: "b.txt", old_string: "x", new_string: "x" }));
    expect(completed).toMatchObject({ success: false, error: "invalid_arguments" });
    ({ completed } = await call("edit", { path: "nope.txt", old_string: "x", new_string: "y" }));
    expect(completed.output).toContain("nope.txt");
    expect(completed.output).toContain("does not exist");
    expect(await readFile(ws("b.txt"), "utf8")).toBe("x\nx\n");
    ({ completed } = await call("edit", { path: "b.txt", old_string: "x", new_string: "y", replace_all: true }));
    expect(completed.success).toBe(true);
    expect(await readFile(ws("b.txt"), "utf8")).toBe("y\ny\n");
  });

  it("refuses paths outside the workspace before asking", async () => {
    const { approval, completed } = await call("edit", { path: "../escape.txt", old_string: "a", new_string: "b" });
    expect(approval).toBeUndefined();
    expect(completed).toMatchObject({ success: false, error: "invalid_arguments" });
  });
});

describe("the approval diff", () => {
  it("is bounded, with a notice of what was cut, for a large write", async () => {
    const content = Array.from({ length: 5000 }, (_, index) => `line ${index}`).join("\n") + "\n";
    const { approval } = await call("write", { path: "big.txt", mode: "create", content }, false);
    expect(approval!.diff.startsWith("--- /dev/null\n+++ b/big.txt\n@@ -0,0 +1,5000 @@\n+line 0\n")).toBe(true);
    expect(approval!.diff).toMatch(/… diff cut: \d+ more lines not shown\n$/);
    expect(approval!.diff.split("\n").length).toBeLessThanOrEqual(2002);
    expect(existsSync(ws("big.txt"))).toBe(false);
  });

  it("shows a replace against the current file, and is absent for bash", async () => {
    await writeFile(ws("r.txt"), "old\n");
    const { approval } = await call("write", { path: "r.txt", mode: "replace", content: "new\n" }, false);
    expect(approval!.diff).toBe("--- a/r.txt\n+++ b/r.txt\n@@ -1,1 +1,1 @@\n-old\n+new\n");
    const bash = await call("bash", { command: "touch x" }, false);
    expect(bash.approval).not.toHaveProperty("diff");
  });
});

describe("apply_patch", () => {
  it("adds, updates and deletes in one patch, lists A/M/D and shows the diff when asking", async () => {
    await writeFile(ws("keep.txt"), "alpha\nbeta\ngamma\n");
    await writeFile(ws("old.txt"), "bye\n");
    const input = [
      "*** Begin Patch",
      "*** Add File: new/hello.txt",
      "+hello",
      "*** Update File: keep.txt",
      "@@",
      " alpha",
      "-beta",
      "+BETA",
      "*** Delete File: old.txt",
      "*** End Patch",
    ].join("\n");
    const { approval, completed } = await call("apply_patch", { input });
    expect(approval!.diff).toContain("+++ b/new/hello.txt");
    expect(approval!.diff).toContain("-beta\n+BETA");
    expect(approval!.diff).toContain("--- a/old.txt\n+++ /dev/null");
    expect(completed.success).toBe(true);
    expect(completed.output).toContain("A new/hello.txt\nM keep.txt\nD old.txt");
    expect(await readFile(ws("new/hello.txt"), "utf8")).toBe("hello\n");
    expect(await readFile(ws("keep.txt"), "utf8")).toBe("alpha\nBETA\ngamma\n");
    expect(existsSync(ws("old.txt"))).toBe(false);
  });

  it("changes nothing when a later hunk does not apply, and says which file and lines", async () => {
    await writeFile(ws("a.txt"), "1\n2\n");
    const input = [
      "*** Begin Patch",
      "*** Add File: created.txt",
      "+x",
      "*** Update File: a.txt",
      "@@",
      "-nope",
      "+3",
      "*** End Patch",
    ].join("\n");
    const { completed } = await call("apply_patch", { input });
    expect(completed.success).toBe(false);
    expect(completed.output).toContain("update a.txt");
    expect(completed.output).toContain("nope");
    expect(existsSync(ws("created.txt"))).toBe(false);
    expect(await readFile(ws("a.txt"), "utf8")).toBe("1\n2\n");
  });

  it("refuses a patch that names a path outside the workspace", async () => {
    const input = ["*** Begin Patch", "*** Add File: ../../evil.txt", "+x", "*** End Patch"].join("\n");
    const { approval, completed } = await call("apply_patch", { input });
    expect(approval).toBeUndefined();
    expect(completed).toMatchObject({ success: false, error: "invalid_arguments" });
  });
});

describe("grep, glob and list", () => {
  async function tree() {
    await mkdir(ws("src/deep"), { recursive: true });
    await mkdir(ws("build"), { recursive: true });
    await writeFile(ws(".gitignore"), "build/\n*.log\n");
    await writeFile(ws("src/.gitignore"), "generated.ts\n");
    await writeFile(ws("src/a.ts"), "const needle = 1;\nother\nneedle again\n");
    await writeFile(ws("src/deep/b.ts"), "x\nneedle\n");
    await writeFile(ws("src/generated.ts"), "needle\n");
    await writeFile(ws("build/out.js"), "needle\n");
    await writeFile(ws("debug.log"), "needle\n");
    await writeFile(ws("bin.dat"), Buffer.from([0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65, 0, 1, 2]));
    await writeFile(ws(".env"), "needle=hunter2\n");
  }

  it("grep prints sorted path:line:text, honouring .gitignore at every level, skipping binary and secret files", async () => {
    await tree();
    const { approval, completed } = await call("grep", { pattern: "needle" });
    expect(approval).toBeUndefined();
    expect(completed.success).toBe(true);
    const lines = completed.output.split("\n");
    expect(lines.slice(0, 3)).toEqual([
      "src/a.ts:1:const needle = 1;",
      "src/a.ts:3:needle again",
      "src/deep/b.ts:2:needle",
    ]);
    expect(completed.output).not.toContain("generated.ts");
    expect(completed.output).not.toContain("build/");
    expect(completed.output).not.toContain("debug.log");
    expect(completed.output).not.toContain("bin.dat");
    expect(completed.output).not.toContain("hunter2");
    expect(completed.output).toContain("(1 file not searched: secret-like");
  });

  it("grep bounds its results with a notice and rejects a bad regular expression", async () => {
    await writeFile(ws("many.txt"), "hit\n".repeat(30));
    let { completed } = await call("grep", { pattern: "hit", max_results: 5 });
    expect(completed.output.split("\n").slice(0, 5)).toEqual([1, 2, 3, 4, 5].map((n) => `many.txt:${n}:hit`));
    expect(completed.output).toContain("25 more matching lines not shown");
    ({ completed } = await call("grep", { pattern: "(" }));
    expect(completed).toMatchObject({ success: false, error: "invalid_arguments" });
    expect(completed.output).toContain("invalid regular expression");
  });

  it("glob and list honour .gitignore, sort, and refuse to leave the workspace", async () => {
    await tree();
    let { completed } = await call("glob", { pattern: "**/*.ts" });
    expect(completed.output).toBe("src/a.ts\nsrc/deep/b.ts");
    ({ completed } = await call("list", {}));
    // A secret-like name is not listed either, only counted (docs/security.md, search).
    expect(completed.output.split("\n")).toEqual([
      ".gitignore",
      "bin.dat",
      "src/",
      "src/.gitignore",
      "src/a.ts",
      "src/deep/",
      expect.stringMatching(/^\(1 entry not listed: secret-like/),
    ]);
    ({ completed } = await call("list", { path: ".." }));
    expect(completed).toMatchObject({ success: false, error: "invalid_arguments" });
    ({ completed } = await call("glob", { pattern: "../*" }));
    expect(completed).toMatchObject({ success: false, error: "invalid_arguments" });
  });
});

describe("read-only bash under on-risk", () => {
  it("runs `ls | wc -l` without asking", async () => {
    await writeFile(ws("f.txt"), "x");
    const { approval, completed } = await call("bash", { command: "ls | wc -l" });
    expect(approval).toBeUndefined();
    expect(JSON.parse(completed.output)).toMatchObject({ exit_code: 0, output: "1\n" });
  });

  const asking = [
    "ls > out",
    "echo $(id)",
    "echo `id`",
    "find . -delete",
    "git branch -D x",
    "sed -i s/a/b/ f.txt",
    "bash -c ls",
    "ls; rm x",
    "ls && rm x",
    "cat ../x",
    "cat ~/.scv/config.toml",
    "find /",
    "grep -r key ~",
    "cat .env",
    "X=1 ls",
    "sort -o out f.txt",
  ];
  for (const command of asking) {
    it(`asks for ${JSON.stringify(command)}`, async () => {
      const { approval } = await call("bash", { command }, false);
      expect(approval).toMatchObject({ name: "bash", risk: "process" });
      expect(approval!.summary).toBe(`Run with /bin/bash -c: ${command}`);
    });
  }
});

describe("bash output", () => {
  it("keeps the head and the tail of a failing command's output", async () => {
    const client = await harness.startServer(oneCall("bash", { command: "seq 1 100000; echo THE-ERROR; exit 3" }), {
      toml: "[tools]\noutput_limit_bytes = 2000\n",
    });
    const { completed } = await run(client);
    await client.finish();
    const output = JSON.parse(completed.output);
    expect(output.exit_code).toBe(3);
    expect(output.output.startsWith("1\n2\n3\n")).toBe(true);
    expect(output.output.trimEnd().endsWith("THE-ERROR")).toBe(true);
    expect(output.output).toMatch(/… \[\d+ bytes of output omitted\] …/);
  });

  it("runs bash -c, not a login shell, unless tools.login_shell", async () => {
    await writeFile(path.join(harness.sandbox.home, ".bash_profile"), "echo PROFILE-RAN\n").catch(() => undefined);
    const env = { HOME: harness.sandbox.workspace };
    await writeFile(ws(".bash_profile"), "echo PROFILE-RAN\n");
    let client = await harness.startServer(oneCall("bash", { command: "echo hi" }), { env });
    let { completed } = await run(client);
    await client.finish();
    expect(JSON.parse(completed.output).output).toBe("hi\n");
    client = await harness.startServer(oneCall("bash", { command: "echo hi" }), {
      env,
      toml: "[tools]\nlogin_shell = true\n",
    });
    ({ completed } = await run(client));
    await client.finish();
    expect(JSON.parse(completed.output).output).toBe("PROFILE-RAN\nhi\n");
  });
});

describe("session.configure", () => {
  it("changes the approval policy and model of a running session and keeps the history", async () => {
    const client = await harness.startServer([
      textResponse(["first"]),
      toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "echo x > y.txt" } }]),
      textResponse(["second"]),
    ]);
    client.turn("hello", "t1");
    await terminal(client);
    client.send({
      type: "session.configure",
      request_id: "cfg",
      session_id: client.sessionId,
      approval_policy: "never",
      model: "other-model",
    });
    expect(await client.next("session.configured")).toMatchObject({
      request_id: "cfg",
      session_id: client.sessionId,
      approval_policy: "never",
      model: "other-model",
    });
    client.turn("again", "t2");
    const completed = await client.next("tool.completed");
    expect(completed).toMatchObject({ success: false, error: "denied" });
    await terminal(client);
    const second = harness.provider.requests[1]!.body;
    expect(second.model).toBe("other-model");
    expect(JSON.stringify(second.input)).toContain("hello");
    client.send({
      type: "session.configure",
      request_id: "bad",
      session_id: client.sessionId,
      approval_policy: "sometimes",
    });
    expect(await client.next("error")).toMatchObject({ request_id: "bad", code: "invalid_request" });
    await client.finish();
  });
});

describe("the tools in exec cells", () => {
  it("calls tools.grep, tools.list and tools.edit from a cell, the edit approved like a direct call", async () => {
    await writeFile(ws("cell.txt"), "before\n");
    const code = [
      'const found = await tools.grep({ pattern: "bef" });',
      "const listed = await tools.list({});",
      'const edited = await tools.edit({ path: "cell.txt", old_string: "before", new_string: "after" });',
      'text([found, listed, edited.split("\\n")[0]].join(" | "));',
    ].join("\n");
    const client = await harness.startServer([
      toolCallResponse([{ call_id: "x1", name: "exec", arguments: { code } }]),
      textResponse(["done"]),
    ]);
    client.turn("go");
    // The exec sandbox starts its worker first: allow for a loaded machine.
    const approval = await client.next("approval.requested", 20_000);
    expect(approval).toMatchObject({ call_id: "x1:tool-3", name: "edit" });
    expect(approval.diff).toContain("-before\n+after");
    client.send({
      type: "approval.resolve",
      request_id: "a",
      session_id: client.sessionId,
      approval_id: approval.approval_id,
      approved: true,
    });
    await terminal(client);
    const done = client.events.find((event) => event.type === "tool.completed" && event.call_id === "x1")!;
    await client.finish();
    expect(done.output).toBe("cell.txt:1:before | cell.txt | Edited cell.txt: replaced 1 occurrence");
    expect(await readFile(ws("cell.txt"), "utf8")).toBe("after\n");
  });
});
