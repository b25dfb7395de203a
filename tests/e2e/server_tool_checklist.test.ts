// Spec §11 items 18 (bash), 19 (write), 20 (read), 21 (secret paths), 23 (redirects) and 24 (retries) against the
// real CLI: the model's calls come from the fake provider, the results are read back from the wire and from the
// replay in the next request.
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, symlink, writeFile } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import type { ServerClient, ServerEvent } from "../support/server_client.ts";
import { resolveApproval, useServerHarness } from "../support/server_harness.ts";

// Tool rules through the protocol: the server runs in-process (bash children inherit the test process environment).
const harness = useServerHarness(undefined, { inProcess: true });

type Call = { call_id: string; name: string; arguments: unknown };

/** One response making `calls` in order, then a closing text reply. */
const script = (calls: Call[]): FakeResponse[] => [toolCallResponse(calls), textResponse(["done"])];

/**
 * Runs one turn, approving every request (or answering with `approve`), and returns the tool.completed events by
 * call id, the approvals asked, and the terminal event.
 */
async function runTurn(
  client: ServerClient,
  prompt: string,
  approve: (event: ServerEvent) => boolean = () => true,
): Promise<{ completed: Map<string, ServerEvent>; approvals: ServerEvent[]; end: ServerEvent }> {
  client.turn(prompt);
  const completed = new Map<string, ServerEvent>();
  const approvals: ServerEvent[] = [];
  for (;;) {
    const event = await client.next([
      "approval.requested",
      "tool.completed",
      "turn.completed",
      "turn.failed",
      "turn.cancelled",
    ]);
    if (event.type === "approval.requested") {
      approvals.push(event);
      resolveApproval(client, event.approval_id, approve(event));
    } else if (event.type === "tool.completed") {
      completed.set(event.call_id, event);
    } else {
      return { completed, approvals, end: event };
    }
  }
}

const parsedOutput = (event: ServerEvent | undefined) => JSON.parse(event!.output);

describe("bash through the CLI (§11 item 18)", () => {
  it("times out, does not wait for background jobs, fails on exit 3, and truncates output", async () => {
    const client = await harness.startServer(
      script([
        { call_id: "timeout", name: "bash", arguments: { command: "sleep 5", timeout_seconds: 1 } },
        // Holding its call for the background job would last past the hang deadline.
        { call_id: "background", name: "bash", arguments: { command: "sleep 1000 & echo started" } },
        { call_id: "exit3", name: "bash", arguments: { command: "echo before; exit 3" } },
        { call_id: "long", name: "bash", arguments: { command: "head -c 5000 /dev/zero | tr '\\0' a" } },
      ]),
      { toml: "[tools]\noutput_limit_bytes = 1024\n" },
    );
    const { completed, approvals, end } = await runTurn(client, "run things", () => true);
    expect(end.type).toBe("turn.completed");
    expect(approvals.map((event) => [event.call_id, event.risk])).toEqual([
      ["timeout", "process"],
      ["background", "process"],
      ["exit3", "process"],
      ["long", "process"],
    ]);

    expect(completed.get("timeout")).toMatchObject({ success: false, error: "limit" });
    expect(parsedOutput(completed.get("timeout"))).toMatchObject({ exit_code: null, timed_out: true });

    expect(completed.get("background")).toMatchObject({ success: true });
    expect(parsedOutput(completed.get("background"))).toMatchObject({
      exit_code: 0,
      timed_out: false,
      output: "started\n",
    });

    expect(completed.get("exit3")).toMatchObject({ success: false, error: "failed" });
    expect(parsedOutput(completed.get("exit3"))).toEqual({
      exit_code: 3,
      timed_out: false,
      output: "before\n",
      truncated: false,
    });

    const long = completed.get("long")!;
    expect(long).toMatchObject({ success: true, truncated: true });
    expect(parsedOutput(long)).toMatchObject({ exit_code: 0, truncated: true, output: "a".repeat(1024) });
    await client.finish();
  });
});

describe("write through the CLI (§11 item 19)", () => {
  it("creates, refuses a second create, replaces by sha256, refuses a wrong one and a missing file, and ../x unasked", async () => {
    const sha = (text: string) => createHash("sha256").update(text).digest("hex");
    const client = await harness.startServer(
      script([
        { call_id: "create", name: "write", arguments: { path: "dir/a.txt", content: "one", mode: "create" } },
        { call_id: "again", name: "write", arguments: { path: "dir/a.txt", content: "two", mode: "create" } },
        {
          call_id: "replace",
          name: "write",
          arguments: {
            path: "dir/a.txt",
            content: "three",
            mode: "replace",
            expected_sha256: sha("one").toUpperCase(),
          },
        },
        {
          call_id: "stale",
          name: "write",
          arguments: { path: "dir/a.txt", content: "four", mode: "replace", expected_sha256: sha("one") },
        },
        { call_id: "missing", name: "write", arguments: { path: "nope.txt", content: "x", mode: "replace" } },
        { call_id: "escape", name: "write", arguments: { path: "../x", content: "x", mode: "create" } },
      ]),
    );
    const { completed, approvals, end } = await runTurn(client, "write things");
    expect(end.type).toBe("turn.completed");
    expect(approvals.map((event) => [event.call_id, event.risk, event.summary])).toEqual([
      ["create", "filesystem", "Create dir/a.txt (3 bytes)"],
      ["again", "filesystem", "Create dir/a.txt (3 bytes)"],
      ["replace", "filesystem", "Replace dir/a.txt (5 bytes)"],
      ["stale", "filesystem", "Replace dir/a.txt (4 bytes)"],
      ["missing", "filesystem", "Replace nope.txt (1 bytes)"],
    ]);
    expect(completed.get("create")).toMatchObject({ success: true });
    expect(parsedOutput(completed.get("create"))).toEqual({ path: "dir/a.txt", bytes: 3, sha256: sha("one") });
    expect(completed.get("again")).toMatchObject({ success: false, output: "dir/a.txt already exists" });
    expect(completed.get("replace")).toMatchObject({ success: true });
    expect(parsedOutput(completed.get("replace"))).toEqual({ path: "dir/a.txt", bytes: 5, sha256: sha("three") });
    expect(completed.get("stale")).toMatchObject({
      success: false,
      output: `dir/a.txt changed: expected sha256 ${sha("one")}, found ${sha("three")}`,
    });
    expect(completed.get("missing")).toMatchObject({ success: false, output: "nope.txt does not exist" });
    expect(completed.get("escape")).toMatchObject({ success: false, error: "invalid_arguments" });
    expect(completed.get("escape")!.output).toContain("parent traversal and absolute paths are not allowed");
    expect(client.events.some((event) => event.type === "tool.started" && event.call_id === "escape")).toBe(false);
    await client.finish();

    const workspace = harness.sandbox.workspace;
    expect(await readFile(path.join(workspace, "dir/a.txt"), "utf8")).toBe("three");
    expect(await readdir(workspace)).toEqual(["dir"]);
    expect(await readdir(path.join(workspace, "dir"))).toEqual(["a.txt"]);
    expect(await readdir(harness.sandbox.root)).not.toContain("x");
  });
});

describe("read and secret paths through the CLI (§11 items 20, 21)", () => {
  it("reads a byte range, refuses a symlink escape and a split UTF-8 character, all unasked", async () => {
    const workspace = harness.sandbox.workspace;
    await writeFile(path.join(workspace, "abc.txt"), "abcdef");
    await writeFile(path.join(workspace, "e.txt"), "é");
    await writeFile(path.join(harness.sandbox.root, "outside.txt"), "secret outside");
    await symlink(path.join(harness.sandbox.root, "outside.txt"), path.join(workspace, "link.txt"));
    const client = await harness.startServer(
      script([
        { call_id: "range", name: "read", arguments: { path: "abc.txt", offset: 2, limit: 3 } },
        { call_id: "escape", name: "read", arguments: { path: "link.txt" } },
        { call_id: "split", name: "read", arguments: { path: "e.txt", limit: 1 } },
      ]),
    );
    const { completed, approvals, end } = await runTurn(client, "read things");
    expect(end.type).toBe("turn.completed");
    expect(approvals).toEqual([]);
    expect(completed.get("range")).toMatchObject({ success: true, truncated: true });
    expect(parsedOutput(completed.get("range"))).toEqual({
      path: "abc.txt",
      content: "cde",
      total_bytes: 6,
      offset: 2,
      truncated: true,
    });
    expect(completed.get("escape")!.success).toBe(false);
    expect(completed.get("escape")!.output).toContain("path must remain within workspace");
    expect(completed.get("escape")!.output).not.toContain("secret outside");
    expect(completed.get("split")).toMatchObject({ success: false, output: "selected range of e.txt is not UTF-8" });
    await client.finish();
  });

  it("asks with filesystem risk for .env, a/.env.local, k/id.pem and credentials.txt, not for README.md", async () => {
    const workspace = harness.sandbox.workspace;
    const secrets = [".env", "a/.env.local", "k/id.pem", "credentials.txt"];
    for (const file of [...secrets, "README.md"]) {
      await mkdir(path.dirname(path.join(workspace, file)), { recursive: true });
      await writeFile(path.join(workspace, file), `contents of ${file}`);
    }
    const client = await harness.startServer(
      script(
        [...secrets, "README.md"].map((file, index) => ({
          call_id: `r${index}`,
          name: "read",
          arguments: { path: file },
        })),
      ),
    );
    const { completed, approvals, end } = await runTurn(client, "read secrets", () => false);
    expect(end.type).toBe("turn.completed");
    expect(approvals.map((event) => [event.name, event.risk, event.summary, event.cwd])).toEqual(
      secrets.map((file) => ["read", "filesystem", `Read ${file}`, workspace]),
    );
    for (let index = 0; index < secrets.length; index += 1) {
      expect(completed.get(`r${index}`)).toMatchObject({
        success: false,
        error: "denied",
        output: "tool call denied by policy or user",
      });
    }
    expect(completed.get("r4")).toMatchObject({ success: true });
    await client.finish();
  });
});

describe("web_fetch redirects through the CLI (§11 item 23)", () => {
  it("follows a redirect to the final page and stops after max_redirects", async () => {
    // A local site, reachable because web.allow_private_addresses is on. The refused hop to 169.254.169.254 needs
    // the guard on and a public first hop, so it is a unit test with an injected resolver (tests/tools/web).
    const site = http.createServer((request, response) => {
      const url = new URL(request.url!, "http://x");
      const hop = Number(url.searchParams.get("n") ?? "0");
      if (url.pathname === "/loop") {
        response.writeHead(302, { location: `/loop?n=${hop + 1}` }).end();
      } else if (url.pathname === "/start") {
        response.writeHead(301, { location: "/final" }).end();
      } else {
        response.writeHead(200, { "content-type": "text/plain" }).end("final page");
      }
    });
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve));
    harness.defer(() => new Promise<void>((resolve) => site.close(() => resolve())));
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
    const client = await harness.startServer(
      script([
        { call_id: "ok", name: "web_fetch", arguments: { url: `${base}/start` } },
        { call_id: "loop", name: "web_fetch", arguments: { url: `${base}/loop` } },
      ]),
      { toml: "[web]\nallow_private_addresses = true\nmax_redirects = 2\n" },
    );
    const { completed, approvals, end } = await runTurn(client, "fetch");
    expect(end.type).toBe("turn.completed");
    expect(approvals.map((event) => [event.call_id, event.risk])).toEqual([
      ["ok", "network"],
      ["loop", "network"],
    ]);
    expect(completed.get("ok")).toMatchObject({ success: true });
    expect(completed.get("ok")!.output).toBe(
      `URL: ${base}/final\nStatus: 200\nContent-Type: text/plain\nCharacters: 0-10 of 10\n\nfinal page`,
    );
    expect(completed.get("loop")).toMatchObject({
      success: false,
      output: `fetch ${base}/loop: stopped after 2 redirects`,
    });
    await client.finish();
  });
});

describe("retries through the CLI (§11 item 24)", () => {
  const rateLimited: FakeResponse = {
    status: 429,
    headers: { "retry-after": "0" },
    body: { error: { message: "slow down", type: "rate_limit_error" } },
  };
  const serverError: FakeResponse = {
    status: 500,
    headers: { "retry-after": "0" },
    body: { error: { message: "boom", type: "server_error" } },
  };

  it("retries a 429 and then succeeds", async () => {
    const client = await harness.startServer([rateLimited, textResponse(["after retry"])]);
    const { end } = await runTurn(client, "hi");
    expect(end).toMatchObject({ type: "turn.completed" });
    expect(client.events.filter((event) => event.type === "assistant.delta").map((event) => event.content).join(""))
      .toBe("after retry");
    expect(harness.provider.connections()).toBe(2);
    expect(harness.provider.requests[1]!.rawBody).toBe(harness.provider.requests[0]!.rawBody);
    await client.finish();
  });

  it("gives up after 3 attempts on 500s, fails at once on Retry-After: 120, and never retries a cut after a delta", async () => {
    const client = await harness.startServer([
      serverError,
      serverError,
      serverError,
      { status: 503, headers: { "retry-after": "120" }, body: "busy" },
      { events: [sse.textDelta("partial")], end: "destroy" },
      textResponse(["fine"]),
    ]);
    const first = await runTurn(client, "one");
    expect(first.end).toMatchObject({ type: "turn.failed", code: "provider_error" });
    expect(first.end.message).toMatch(/^provider returned HTTP 500 .*boom.*\(gave up after 3 attempts\)$/);
    expect(harness.provider.connections()).toBe(3);

    // A retry after the 120 s would have met the next scripted response: a fifth connection.
    const second = await runTurn(client, "two");
    expect(second.end).toMatchObject({ type: "turn.failed", code: "provider_error" });
    expect(second.end.message).toContain("HTTP 503");
    expect(harness.provider.connections()).toBe(4);

    const third = await runTurn(client, "three");
    expect(third.end).toMatchObject({ type: "turn.failed", code: "provider_error" });
    expect(harness.provider.connections()).toBe(5);
    const turnId = third.end.turn_id;
    const turnEvents = client.events.filter((event) => event.turn_id === turnId).map((event) => event.type);
    expect(turnEvents).toEqual(["turn.started", "assistant.delta", "turn.failed"]);

    // Each failed turn restored its checkpoint: the next request holds only the new prompt.
    const fourth = await runTurn(client, "four");
    expect(fourth.end.type).toBe("turn.completed");
    expect(harness.provider.requests.at(-1)!.body.input).toEqual([{ role: "user", content: "four" }]);
    await client.finish();
  });
});
