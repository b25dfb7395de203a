// `turn.start.attachments` (issue 20) through `node main.ts server --stdio` against the fake provider: images go to
// the model on both wires, the fallbacks describe them instead, and the limits and path rules refuse bad input.
// deno-lint-ignore-file no-explicit-any -- reads untyped wire JSON (request bodies, JSON-RPC messages)
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fakeProfileToml } from "../support/config_files.ts";
import { chatTextResponse, textResponse } from "../support/fake_provider.ts";
import { type ServerClient, spawnServer } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";
import { tinyPng } from "./png.ts";

const harness = useServerHarness();
const PNG = tinyPng();
const DATA_URL = `data:image/png;base64,${PNG.toString("base64")}`;

async function image(name = "dot.png", bytes: Buffer = PNG): Promise<string> {
  const file = path.join(harness.sandbox.workspace, name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, bytes);
  return file;
}

function attach(file: string, extra: Record<string, unknown> = {}) {
  return { kind: "image", path: file, name: path.basename(file), mime: "image/png", size: PNG.length, ...extra };
}

function turn(client: ServerClient, prompt: string, attachments: unknown[], requestId = "t1"): void {
  client.send({ type: "turn.start", request_id: requestId, session_id: client.sessionId, prompt, attachments });
}

async function chatServer(script: Parameters<typeof harness.startProvider>[0], extraToml = ""): Promise<ServerClient> {
  await harness.startProvider(script);
  await harness.sandbox.writeUserConfig(
    fakeProfileToml({ name: "local", baseUrl: harness.provider.url, model: "llama3.1", apiKey: "local" }) +
      'wire_api = "chat"\n' + extraToml,
  );
  const client = spawnServer({ env: harness.sandbox.env() });
  await client.start({ cwd: harness.sandbox.workspace });
  return client;
}

describe("turn.start.attachments", () => {
  it("sends an image as Responses input_image (data URL), lists it with its path, and again on the next turn", async () => {
    const file = await image();
    const client = await harness.startServer([textResponse(["a red dot"]), textResponse(["still red"])]);
    turn(client, "what is this?", [attach(file)]);
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    client.turn("and now?", "t2");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const [first, second] = harness.provider.requests;
    const user = first!.body.input[0];
    expect(user.role).toBe("user");
    expect(user.content).toEqual([
      {
        type: "input_text",
        text: `what is this?\n\n[The user attached:]\n- image dot.png (image/png, ${PNG.length} bytes) at ${file}`,
      },
      { type: "input_image", image_url: DATA_URL },
    ]);
    // The history keeps the image by path, so the next request shows it again.
    expect(second!.body.input[0]).toEqual(user);
    expect(second!.body.input.at(-1)).toEqual({ role: "user", content: "and now?" });
  });

  it("sends Chat Completions image_url parts", async () => {
    const file = await image();
    const client = await chatServer([chatTextResponse(["dot"])]);
    turn(client, "look", [attach(file)]);
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const user = harness.provider.requests[0]!.body.messages[1];
    expect(user.content).toEqual([
      {
        type: "text",
        text: `look\n\n[The user attached:]\n- image dot.png (image/png, ${PNG.length} bytes) at ${file}`,
      },
      { type: "image_url", image_url: { url: DATA_URL } },
    ]);
  });

  it("describes the image instead when the profile's image_input is false", async () => {
    const file = await image();
    const client = await chatServer([chatTextResponse(["cannot see"])], "image_input = false\n");
    turn(client, "look", [attach(file)]);
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const content = harness.provider.requests[0]!.body.messages[1].content;
    expect(content).toEqual([
      {
        type: "text",
        text:
          `look\n\n[The user attached:]\n- image dot.png (image/png, ${PNG.length} bytes) at ${file}\n[image dot.png: not shown to you here]`,
      },
    ]);
    expect(JSON.stringify(harness.provider.requests[0]!.body)).not.toContain("base64");
  });

  it("falls back to notes when the provider rejects images, for the rest of the session, without failing the turn", async () => {
    const file = await image();
    const rejection = {
      status: 400,
      body: { error: { message: "This model does not support image input.", type: "invalid_request_error" } },
    };
    const client = await harness.startServer([rejection, textResponse(["described"]), textResponse(["again"])]);
    turn(client, "look", [attach(file)]);
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    client.turn("more", "t2");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const [rejected, retried, next] = harness.provider.requests;
    expect(rejected!.body.input[0].content[1]).toEqual({ type: "input_image", image_url: DATA_URL });
    for (const request of [retried!, next!]) {
      expect(request.body.input[0].content).toEqual([
        { type: "input_text", text: expect.stringMatching(/\n\[image dot\.png: not shown to you here\]$/) },
      ]);
    }
    expect(client.stderr).toContain("provider rejected image input");
  });

  it("fails the turn as before when a provider error is not about images", async () => {
    const file = await image();
    const client = await harness.startServer([{
      status: 400,
      body: { error: { message: "bad request", type: "invalid_request_error" } },
    }]);
    turn(client, "look", [attach(file)]);
    expect(await terminal(client)).toMatchObject({ type: "turn.failed", code: "provider_error" });
    await client.finish();
    expect(harness.provider.requests).toHaveLength(1);
  });

  it("lists other kinds, transcripts, unsupported and oversized images, and hides paths from tool-free sessions", async () => {
    const heic = await image("a.heic", Buffer.from("not really"));
    const big = await image("big.png");
    const voice = await image("v.silk", Buffer.from("silk"));
    const client = await harness.startServer([textResponse(["ok"])], { start: { no_tools: true } });
    turn(client, "", [
      { kind: "image", path: heic, name: "a.heic", mime: "image/heic", size: 10 },
      attach(big, { size: 8 * 1024 * 1024 + 1 }),
      { kind: "audio", path: voice, mime: "audio/silk", size: 900, transcript: " see you\nat five " },
    ]);
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const user = harness.provider.requests[0]!.body.input[0];
    // Nothing to show, so the message stays plain text; tool-free sessions see no paths.
    expect(user.content).toBe(
      "[The user attached:]\n- image a.heic (image/heic, 10 bytes)\n- image big.png (image/png, 8.0 MB)\n" +
        '- voice or audio (audio/silk, 900 bytes); it says: "see you at five"',
    );
  });

  it("says an image could not be read when the file grew past 8 MiB after submission", async () => {
    const file = await image();
    const client = await harness.startServer([textResponse(["ok"])]);
    await writeFile(file, Buffer.alloc(8 * 1024 * 1024 + 1));
    turn(client, "look", [attach(file)]);
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const content = harness.provider.requests[0]!.body.input[0].content;
    expect(content).toHaveLength(1);
    expect(content[0].text).toMatch(/\n\[image dot\.png: could not be read\]$/);
  });

  it("queues a turn with its attachments and sends the image when it runs", async () => {
    const file = await image();
    const client = await harness.startServer([
      { ...textResponse(["first"]), headerDelayMs: 800 },
      textResponse(["second"]),
    ]);
    client.turn("first", "t1");
    await client.next("turn.started");
    turn(client, "", [attach(file)], "t2");
    const enqueued = await client.next("queue.enqueued");
    expect(enqueued.entry).toMatchObject({ prompt: "", submitter: "t2", attachments: [attach(file)] });
    await terminal(client);
    expect(await terminal(client, 5000)).toMatchObject({ type: "turn.completed", request_id: "t2" });
    await client.finish();
    const last = harness.provider.requests[1]!.body.input.at(-1);
    expect(last.content[1]).toEqual({ type: "input_image", image_url: DATA_URL });
  });

  it("refuses too many attachments, unknown kinds, relative paths, non-files and symlinks before any request", async () => {
    const file = await image();
    await mkdir(path.join(harness.sandbox.workspace, "dir"));
    await symlink(file, path.join(harness.sandbox.workspace, "link.png"));
    const client = await harness.startServer([]);
    const cases: Array<[unknown[], string]> = [
      [Array.from({ length: 17 }, () => attach(file)), "a turn may attach at most 16 files"],
      [[attach(file, { kind: "script" })], 'unknown attachment kind "script"'],
      [[attach("dot.png")], "attachment paths must be absolute"],
      [[attach(path.join(harness.sandbox.workspace, "dir"))], "an attachment is not a regular file"],
      [[attach(path.join(harness.sandbox.workspace, "missing.png"))], "an attachment is not a regular file"],
      [[attach(path.join(harness.sandbox.workspace, "link.png"))], "an attachment is not a regular file"],
    ];
    for (const [attachments, message] of cases) {
      turn(client, "look", attachments, "bad");
      expect(await client.next("error")).toMatchObject({ request_id: "bad", code: "invalid_request", message });
    }
    turn(client, "  ", [], "empty");
    expect(await client.next("error")).toMatchObject({
      message: "prompt must be non-empty and no larger than 256 KiB",
    });
    client.send({
      type: "turn.start",
      request_id: "typed",
      session_id: client.sessionId,
      prompt: "x",
      attachments: [{ kind: "image", path: file }],
    });
    expect(await client.next("error")).toMatchObject({ code: "invalid_json" });
    // Exactly 16 is fine.
    harness.provider.push(textResponse(["ok"]));
    turn(client, "look", Array.from({ length: 16 }, () => attach(file)), "sixteen");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    expect(harness.provider.requests).toHaveLength(1);
    // A request shows at most eight images, whole messages newest first: this one's sixteen are only named.
    const parts = harness.provider.requests[0]!.body.input[0].content;
    expect(parts.filter((part: any) => part.type === "input_image")).toHaveLength(0);
  });

  it("keeps files outside the workspace and secret-looking files out, however the path is spelled", async () => {
    const outside = await mkdtemp(path.join(tmpdir(), "scv-outside-"));
    harness.defer(() => rm(outside, { recursive: true, force: true }));
    const foreign = path.join(outside, "secret.png");
    await writeFile(foreign, PNG);
    // A directory symlink inside the workspace that leads out: the final component is a regular file.
    await symlink(outside, path.join(harness.sandbox.workspace, "shared"));
    const env = await image(".env", PNG);
    const key = await image("keys/credentials.png");
    const ssh = await image(".ssh/shot.png");
    const client = await harness.startServer([]);
    const escapes = [
      foreign,
      path.join(harness.sandbox.workspace, "shared", "secret.png"),
      `${harness.sandbox.workspace}/${path.relative(harness.sandbox.workspace, foreign)}`,
    ];
    for (const file of escapes) {
      turn(client, "look", [attach(file)], "out");
      const error = await client.next("error");
      expect(error).toMatchObject({
        code: "invalid_request",
        message: `attach ${file}: resolves outside the workspace; path must remain within workspace`,
      });
    }
    for (const file of [env, key, ssh]) {
      turn(client, "look", [attach(file)], "secret");
      expect(await client.next("error")).toMatchObject({
        code: "invalid_request",
        message: `attach ${file}: the path looks like it holds credentials and cannot be attached`,
      });
    }
    await client.finish();
    expect(harness.provider.requests).toHaveLength(0);
  });
});
