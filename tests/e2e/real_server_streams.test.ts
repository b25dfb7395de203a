// Issue 14's headline cases through `scv exec`, the provider speaking the real servers' formats: a reasoning
// model's round trip across a tool call, an old llama.cpp error line, a refusal, and the errors of local servers
// started without the flags tool calls need.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import {
  chatStream,
  chatText,
  errorBodies,
  llamaErrorLineStream,
  responsesStream,
} from "../provider/fixtures/real_streams.ts";

const harness = useCliHarness();

const chatWire = () => harness.sandbox.writeUserConfig('[provider]\nwire_api = "chat"\napi_key = "local"\n');

describe("real server streams through scv exec", () => {
  it("gpt-5 keeps its reasoning across a tool call: encrypted reasoning replayed, phase kept, store:false", async () => {
    await writeFile(join(harness.sandbox.workspace, "README.md"), "# greet\n");
    harness.provider.push(
      {
        events: responsesStream([
          {
            type: "reasoning",
            id: "rs_0a1b",
            encrypted_content: "gAAAAABpENCRYPTED==",
            summary: ["Read the README first."],
          },
          { type: "message", id: "msg_0a1c", text: "Let me look.", phase: "commentary" },
          {
            type: "function_call",
            id: "fc_0a1d",
            call_id: "call_readme",
            name: "read",
            arguments: '{"path":"README.md"}',
          },
        ]),
      },
      {
        events: responsesStream([{
          type: "message",
          id: "msg_0a1e",
          text: "It is called greet.",
          phase: "final_answer",
        }]),
      },
    );
    const result = await harness.start(["exec", "what is this?"], { env: { SCV_MODEL: "gpt-5" } }).done;
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("Let me look.");
    expect(result.stdout).toContain("It is called greet.");
    const [first, second] = harness.provider.requests.map((request) => request.body);
    for (const body of [first, second]) {
      expect(body.store).toBe(false);
      expect(body.include).toEqual(["reasoning.encrypted_content"]);
    }
    expect(second.prompt_cache_key).toBe(first.prompt_cache_key);
    expect(second.input.slice(1, 4)).toEqual([
      {
        type: "reasoning",
        summary: [{ type: "summary_text", text: "Read the README first." }],
        encrypted_content: "gAAAAABpENCRYPTED==",
      },
      { role: "assistant", content: "Let me look.", phase: "commentary" },
      { type: "function_call", call_id: "call_readme", name: "read", arguments: '{"path":"README.md"}' },
    ]);
    expect(second.input[4]).toMatchObject({ type: "function_call_output", call_id: "call_readme" });
  });

  it("an old llama-server's error: line under HTTP 200 fails the turn instead of an empty success", async () => {
    await chatWire();
    harness.provider.push({
      events: llamaErrorLineStream("the request exceeds the available context size, try increasing it"),
    });
    const result = await harness.start(["exec", "--json", "go"]).done;
    expect(result.code).toBe(1);
    const events = result.stdout.trim().split("\n").map((line) => JSON.parse(line));
    expect(events.some((event) => event.type === "assistant.completed")).toBe(false);
    expect(events.at(-1)).toMatchObject({
      type: "turn.failed",
      code: "provider_error",
      message: expect.stringContaining("provider stream error: the request exceeds the available context size"),
    });
    expect(harness.provider.requests).toHaveLength(1);
  });

  it("a refusal is printed, on both wires", async () => {
    harness.provider.push({
      events: responsesStream([{ type: "message", id: "msg_r", refusal: "I can't help with that." }]),
    });
    const responses = await harness.start(["exec", "do something bad"]).done;
    expect(responses).toMatchObject({ code: 0, stdout: "I can't help with that.\n" });

    await chatWire();
    harness.provider.push({ events: chatStream("openai", [{ refusal: "I'm sorry, I can't assist." }]) });
    const chat = await harness.start(["exec", "do something bad"]).done;
    expect(chat).toMatchObject({ code: 0, stdout: "I'm sorry, I can't assist.\n" });
  });

  it("llama-server without --jinja and vLLM without --enable-auto-tool-choice: the printed error names the flag", async () => {
    await chatWire();
    harness.provider.push(
      { status: 500, body: errorBodies.llamaJinja },
      { status: 400, body: errorBodies.vllmAutoToolChoice },
      { events: chatStream("vllm", chatText("unused", 1)) },
    );
    const llama = await harness.start(["exec", "go"]).done;
    expect(llama.code).toBe(1);
    expect(llama.stderr).toContain("tools param requires --jinja flag");
    expect(llama.stderr).toContain("start llama-server with --jinja");
    // The 500 is permanent: one request, no retry.
    expect(harness.provider.requests).toHaveLength(1);
    const vllm = await harness.start(["exec", "go"]).done;
    expect(vllm.code).toBe(1);
    expect(vllm.stderr).toContain("start vLLM with --enable-auto-tool-choice --tool-call-parser");
  });
});
