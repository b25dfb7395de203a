// Undo and rewind through the real server (docs/sessions.md#undo-and-rewind): what bash wrote and deleted is undone
// exactly, a file the user changed since is left alone and listed, conversation and code rewind apart and together
// (also after a restart), the user's own git repository (index, stash, hooks, filters) never touched, and without
// git only the file tools' changes undone, which the reply says.
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { type ServerClient, type ServerEvent, spawnServer } from "../support/server_client.ts";
import { resolveApproval, useServerHarness } from "../support/server_harness.ts";
import { digestOf, treeOf } from "../support/workspace_tree.ts";
import { freshBinary } from "../support/binary.ts";
import { UNDER_DENO } from "../support/cli_command.ts";

const harness = useServerHarness();
const ws = (...parts: string[]) => join(harness.sandbox.workspace, ...parts);

const bash = (command: string, id = "call_1"): FakeResponse =>
  toolCallResponse([{ call_id: id, name: "bash", arguments: { command } }]);
const write = (path: string, content: string, id = "call_w"): FakeResponse =>
  toolCallResponse([{ call_id: id, name: "write", arguments: { path, content, mode: "replace" } }]);

/** Runs one turn to its end, approving every call; returns its turn id and terminal event. */
async function turn(client: ServerClient, prompt: string): Promise<{ turnId: string; end: ServerEvent }> {
  client.turn(prompt, `turn-${prompt}`);
  const started = await client.next("turn.started");
  for (;;) {
    const event = await client.next(["approval.requested", "turn.completed", "turn.failed", "turn.cancelled"]);
    if (event.type === "approval.requested") resolveApproval(client, event.approval_id, true);
    else return { turnId: started.turn_id, end: event };
  }
}

async function request(client: ServerClient, message: Record<string, unknown>): Promise<ServerEvent> {
  const id = `req-${Math.random().toString(36).slice(2)}`;
  client.send({ ...message, request_id: id, session_id: client.sessionId });
  for (;;) {
    const event = await client.next();
    if (event.request_id === id) return event;
  }
}

function seedWorkspace(): void {
  writeFileSync(ws("keep.txt"), "untouched\n");
  writeFileSync(ws("a.txt"), "a before\n");
  writeFileSync(ws("b.txt"), "b before\n");
  writeFileSync(ws("run.sh"), "#!/bin/sh\necho run\n");
  chmodSync(ws("run.sh"), 0o755);
  mkdirSync(ws("src"));
  writeFileSync(ws("src", "main.c"), "int main() { return 0; }\n");
  symlinkSync("src/main.c", ws("link"));
}

describe("session.undo", () => {
  it("undoes exactly what bash wrote, deleted, created and chmodded in the last turn", async () => {
    seedWorkspace();
    const before = treeOf(harness.sandbox.workspace);
    const command = [
      "printf 'a after\\n' > a.txt",
      "rm b.txt src/main.c",
      "mkdir -p gen/deep && printf made > gen/deep/new.txt",
      "chmod -x run.sh",
      "rm link && ln -s a.txt link",
    ].join(" && ");
    const client = await harness.startServer([bash(command), textResponse(["done"])]);
    const { end } = await turn(client, "change things");
    expect(end.type).toBe("turn.completed");
    expect(treeOf(harness.sandbox.workspace)).not.toEqual(before);

    const reply = await request(client, { type: "session.undo" });
    expect(reply).toMatchObject({
      type: "session.rewound",
      restore: "both",
      coverage: "workspace",
      files: {
        restored: ["a.txt", "b.txt", "gen/deep/new.txt", "link", "run.sh", "src/main.c"],
        conflicts: [],
        failed: [],
      },
      notices: [],
    });
    expect(treeOf(harness.sandbox.workspace)).toEqual(before);
    await client.finish();
  });

  it("leaves a file the user changed since alone and lists it; force restores it", async () => {
    seedWorkspace();
    const client = await harness.startServer([
      bash("printf 'agent\\n' > a.txt && printf 'agent\\n' > b.txt"),
      textResponse(["done"]),
    ]);
    const { turnId } = await turn(client, "edit two files");
    writeFileSync(ws("a.txt"), "the user's own edit\n");

    const reply = await request(client, { type: "session.rewind", turn_id: turnId, restore: "code" });
    expect(reply.files).toMatchObject({ restored: ["b.txt"], conflicts: ["a.txt"] });
    expect(readFileSync(ws("a.txt"), "utf8")).toBe("the user's own edit\n");
    expect(readFileSync(ws("b.txt"), "utf8")).toBe("b before\n");

    // The conversation still holds the turn; forced, the conflict is restored too.
    const forced = await request(client, { type: "session.undo", force: true });
    expect(forced.files).toMatchObject({ conflicts: ["a.txt"], restored: ["a.txt"] });
    expect(readFileSync(ws("b.txt"), "utf8")).toBe("b before\n");
    expect(readFileSync(ws("a.txt"), "utf8")).toBe("a before\n");
    await client.finish();
  });

  it("answers turn_not_found when there is nothing to undo and turn_active during a turn", async () => {
    const client = await harness.startServer([bash("sleep 30"), textResponse(["x"])]);
    const nothing = await request(client, { type: "session.undo" });
    expect(nothing).toMatchObject({ type: "error", code: "turn_not_found", message: "there is no turn to undo" });
    client.turn("wait");
    await client.next("approval.requested");
    const busy = await request(client, { type: "session.undo" });
    expect(busy).toMatchObject({ type: "error", code: "turn_active" });
    const bad = await request(client, { type: "session.rewind", turn_id: "x", restore: "files" });
    expect(bad).toMatchObject({ type: "error", code: "turn_active" });
    await client.finish();
  });
});

describe("session.rewind", () => {
  it("rewinds code only, then the conversation after a restart, and both", async () => {
    const script = [
      bash("printf one > one.txt"),
      textResponse(["first answer"]),
      bash("printf two > two.txt", "call_2"),
      textResponse(["second answer"]),
      textResponse(["third answer"]),
      textResponse(["fourth answer"]),
    ];
    const client = await harness.startServer(script);
    const id = client.sessionId;
    const first = await turn(client, "first prompt");
    const second = await turn(client, "second prompt");

    const code = await request(client, { type: "session.rewind", turn_id: second.turnId, restore: "code" });
    expect(code).toMatchObject({ restore: "code", turns: [second.turnId], files: { restored: ["two.txt"] } });
    expect(existsSync(ws("two.txt"))).toBe(false);
    expect(existsSync(ws("one.txt"))).toBe(true);
    // The conversation keeps the second turn.
    await turn(client, "third prompt");
    const third = JSON.stringify(harness.provider.requests[4]!.body.input);
    expect(third).toContain("second prompt");
    await client.finish();

    // After a restart the same history: rewinding the conversation to the second turn drops it and the third.
    const again = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env() });
    await again.initialize();
    again.send({ type: "session.resume", request_id: "resume", session_id: id });
    await again.next("session.started");
    const replay = await again.next("session.replay");
    expect(replay.turns.map((turn: { turn_id: string }) => turn.turn_id)).toContain(second.turnId);
    await again.next("queue.snapshot");
    again.sessionId = id;
    const conversation = await request(again, {
      type: "session.rewind",
      turn_id: second.turnId,
      restore: "conversation",
    });
    expect(conversation).toMatchObject({ restore: "conversation", turns: [second.turnId, expect.any(String)] });
    expect(conversation.files).toBeUndefined();
    await turn(again, "fourth prompt");
    const fourth = JSON.stringify(harness.provider.requests[5]!.body.input);
    expect(fourth).toContain("first prompt");
    expect(fourth).not.toContain("second prompt");
    expect(fourth).not.toContain("third prompt");

    // Both, to the first turn: its file goes, and the conversation starts again.
    const both = await request(again, { type: "session.rewind", turn_id: first.turnId, restore: "both" });
    expect(both.files).toMatchObject({ restored: ["one.txt"], conflicts: [] });
    expect(existsSync(ws("one.txt"))).toBe(false);
    await again.finish();

    const third2 = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env() });
    await third2.initialize();
    third2.send({ type: "session.resume", request_id: "resume", session_id: id });
    await third2.next("session.started");
    expect((await third2.next("session.replay")).turns).toEqual([]);
    await third2.finish();
  });
});

describe("the snapshot store", () => {
  it("never touches the user's git repository: index, stash, hooks and filters", async () => {
    const git = (...args: string[]) =>
      execFileSync("git", args, {
        cwd: harness.sandbox.workspace,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1", HOME: harness.sandbox.workspace },
        encoding: "utf8",
      });
    writeFileSync(ws("tracked.txt"), "v1\n");
    writeFileSync(ws(".gitattributes"), "* filter=evil\n*.txt text eol=crlf\n");
    git("init", "-q");
    git("config", "user.email", "me@example.com");
    git("config", "user.name", "me");
    git("config", "core.safecrlf", "false");
    git("add", "tracked.txt");
    git("commit", "-qm", "first");
    writeFileSync(ws("tracked.txt"), "v2 stashed\n");
    git("stash");
    writeFileSync(ws("tracked.txt"), "v3 staged\n");
    git("add", "tracked.txt");
    // Anything that would run inside the user's repository leaves a mark.
    const mark = join(mkdtempSync(join(tmpdir(), "scv-mark-")), "ran");
    git("config", "filter.evil.clean", `sh -c 'touch ${mark}; cat'`);
    git("config", "filter.evil.smudge", `sh -c 'touch ${mark}; cat'`);
    for (const hook of ["post-checkout", "pre-commit", "post-index-change", "reference-transaction"]) {
      writeFileSync(join(ws(".git", "hooks"), hook), `#!/bin/sh\ntouch ${mark}\n`, { mode: 0o755 });
    }
    git("config", "core.fsmonitor", `sh -c 'touch ${mark}'`);
    const repository = digestOf(ws(".git"));
    const stash = git("stash", "list");

    const client = await harness.startServer([
      bash("printf 'v4 agent\\r\\n' > tracked.txt && printf new > new.txt"),
      textResponse(["done"]),
    ]);
    await turn(client, "edit");
    const reply = await request(client, { type: "session.undo" });
    expect(reply.files).toMatchObject({ restored: ["new.txt", "tracked.txt"], conflicts: [] });
    expect(readFileSync(ws("tracked.txt"), "utf8")).toBe("v3 staged\n");
    expect(existsSync(ws("new.txt"))).toBe(false);
    await client.finish();

    expect(existsSync(mark)).toBe(false);
    expect(digestOf(ws(".git"))).toEqual(repository);
    expect(git("stash", "list")).toBe(stash);
    // The private store lives in the home, not in the workspace.
    expect(existsSync(join(harness.sandbox.home, "snapshots"))).toBe(true);
  });

  it("honours .gitignore and leaves files over the size cap out (and alone)", async () => {
    writeFileSync(ws(".gitignore"), "build/\n");
    mkdirSync(ws("build"));
    writeFileSync(ws("build", "out.o"), "old object\n");
    const client = await harness.startServer(
      [
        bash("printf new > build/out.o && head -c 3000 /dev/zero > big.bin && printf small > small.txt"),
        textResponse(["done"]),
      ],
      { toml: "[snapshots]\nmax_file_bytes = 1000\n" },
    );
    await turn(client, "build");
    const reply = await request(client, { type: "session.undo" });
    expect(reply.files).toMatchObject({ restored: ["small.txt"], skipped: ["big.bin"] });
    expect(readFileSync(ws("build", "out.o"), "utf8")).toBe("new");
    expect(existsSync(ws("big.bin"))).toBe(true);
    expect(existsSync(ws("small.txt"))).toBe(false);
    await client.finish();
  });

  it("without git covers only the file tools' changes, and says so", async () => {
    // A PATH without git (bash itself is run by its absolute path; `printf` is a builtin).
    const empty = mkdtempSync(join(tmpdir(), "scv-nogit-"));
    writeFileSync(ws("a.txt"), "a before\n");
    const client = await harness.startServer(
      [write("a.txt", "written by the tool\n"), bash("printf by-bash > bash.txt"), textResponse(["done"])],
      { env: { PATH: empty } },
    );
    await turn(client, "both writers");
    expect(readFileSync(ws("a.txt"), "utf8")).toBe("written by the tool\n");
    const reply = await request(client, { type: "session.undo" });
    expect(reply).toMatchObject({ coverage: "file_tools", files: { restored: ["a.txt"], conflicts: [] } });
    expect(reply.notices.join(" ")).toContain("git is not installed");
    expect(readFileSync(ws("a.txt"), "utf8")).toBe("a before\n");
    expect(readFileSync(ws("bash.txt"), "utf8")).toBe("by-bash");
    await client.finish();
  });
});

// The binary differs from the source (one bundle, no dynamic imports): snapshots (the git CLI driven from it), the
// rewind and the shipped price table must work there too. Node only: the binary is a Node single-executable app.
describe.skipIf(UNDER_DENO)("the compiled binary", () => {
  it("undoes a bash turn and prices it", async () => {
    const binary = await freshBinary();
    seedWorkspace();
    const before = treeOf(harness.sandbox.workspace);
    const fake = await harness.startProvider([
      bash("printf 'a after\\n' > a.txt && rm b.txt && printf new > c.txt"),
      textResponse(["done"], { input_tokens: 2000, output_tokens: 100 }),
    ]);
    const client = spawnServer({
      command: binary,
      args: [...harness.flags(fake.url), "--model", "gpt-5"],
      env: harness.env(),
    });
    await client.start({ cwd: harness.sandbox.workspace });
    const { end } = await turn(client, "change things");
    expect(end.type).toBe("turn.completed");
    // gpt-5: 2000 in and 100 out (the first request reported none) cost $0.0035.
    expect(end.cost_usd).toBe(0.0035);
    const reply = await request(client, { type: "session.undo" });
    expect(reply).toMatchObject({
      type: "session.rewound",
      coverage: "workspace",
      files: { restored: ["a.txt", "b.txt", "c.txt"], conflicts: [], failed: [] },
    });
    expect(treeOf(harness.sandbox.workspace)).toEqual(before);
    await client.finish();
  }, 400_000);
});
