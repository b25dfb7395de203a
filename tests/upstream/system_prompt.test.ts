// `session.start.system_prompt` (issue 20, upstream parity) through `node main.ts server --stdio` against the fake
// provider: a tool-free session's whole system prompt is the client's, on both wires; misuse is refused.
import { writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fakeProfileToml } from "../support/config_files.ts";
import { chatTextResponse, textResponse } from "../support/fake_provider.ts";
import { spawnServer } from "../support/server_client.ts";
import { terminal, useServerHarness } from "../support/server_harness.ts";

const harness = useServerHarness();
const NEEDS_NO_TOOLS = "system_prompt requires no_tools: true";
const INVALID = "system_prompt must be at most 16384 bytes, with no control characters other than line breaks and tabs";

async function startError(fields: Record<string, unknown>) {
  await harness.startProvider([]);
  const client = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env() });
  await client.initialize();
  client.send({ type: "session.start", request_id: "s1", cwd: harness.sandbox.workspace, ...fields });
  const reply = await client.next(["session.started", "error"]);
  return { client, reply };
}

describe("session.start.system_prompt", () => {
  it("replaces the whole Responses instructions of a tool-free session, AGENTS.md and workspace line included", async () => {
    await writeFile(path.join(harness.sandbox.workspace, "AGENTS.md"), "project rule: never say hello\n");
    const prompt = "You triage mail.\n\tAnswer with one word.";
    const client = await harness.startServer([textResponse(["spam"])], {
      start: { no_tools: true, system_prompt: prompt },
    });
    client.turn("classify this");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    const [request] = harness.provider.requests;
    expect(request!.body.instructions).toBe(prompt);
    expect(request!.body.tools).toBeUndefined();
  });

  it("is the system message on the Chat Completions wire", async () => {
    await harness.startProvider([chatTextResponse(["ok"])]);
    await harness.sandbox.writeUserConfig(
      fakeProfileToml({ name: "local", baseUrl: harness.provider.url, model: "llama3.1", apiKey: "local" }) +
        'wire_api = "chat"\n',
    );
    const client = spawnServer({ env: harness.sandbox.env() });
    await client.start({ cwd: harness.sandbox.workspace, no_tools: true, system_prompt: "Only a caller's words." });
    client.turn("hi");
    expect(await terminal(client)).toMatchObject({ type: "turn.completed" });
    await client.finish();
    expect(harness.provider.requests[0]!.body.messages[0]).toEqual({
      role: "system",
      content: "Only a caller's words.",
    });
  });

  it("accepts exactly 16 KiB and leaves the configured prompt alone when absent", async () => {
    const prompt = "é".repeat(8192);
    const client = await harness.startServer([textResponse(["a"])], {
      start: { no_tools: true, system_prompt: prompt },
    });
    client.turn("go");
    await terminal(client);
    await client.finish();
    expect(harness.provider.requests[0]!.body.instructions).toBe(prompt);

    const plain = await harness.startServer([textResponse(["b"])], { start: { no_tools: true } });
    plain.turn("go");
    await terminal(plain);
    await plain.finish();
    expect(harness.provider.requests[0]!.body.instructions).toContain("You are SCV");
  });

  it("is refused with tools, as the session would run tools under instructions the owner never wrote", async () => {
    for (const fields of [{ system_prompt: "x" }, { system_prompt: "x", no_tools: false }]) {
      const { client, reply } = await startError(fields);
      expect(reply).toMatchObject({
        type: "error",
        request_id: "s1",
        code: "invalid_request",
        message: NEEDS_NO_TOOLS,
        fatal: false,
      });
      // The connection stays usable: a correct session.start succeeds afterwards.
      client.send({ type: "session.start", request_id: "s2", cwd: harness.sandbox.workspace });
      expect(await client.next(["session.started", "error"])).toMatchObject({
        type: "session.started",
        request_id: "s2",
      });
      await client.finish();
    }
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("is refused over 16 KiB or with control characters other than line breaks and tabs", async () => {
    for (
      const prompt of [
        "a".repeat(16_385),
        "é".repeat(8192) + "a",
        "bell\u0007",
        "cr\r\nlf",
        "esc\u001b[2J",
        "nul\u0000",
      ]
    ) {
      const { client, reply } = await startError({ no_tools: true, system_prompt: prompt });
      expect(reply).toMatchObject({ type: "error", code: "invalid_request", message: INVALID });
      await client.finish();
    }
  });

  it("must be a string", async () => {
    const { client, reply } = await startError({ no_tools: true, system_prompt: 7 });
    expect(reply).toMatchObject({
      type: "error",
      code: "invalid_json",
      message: "invalid protocol JSON: invalid type for field `system_prompt`: expected a string",
    });
    await client.finish();
  });
});
