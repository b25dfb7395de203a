// Usage details on the two OpenAI wires (issue 32, shared with the pricing work of issue 31): the cached part of the
// input and the reasoning part of the output, read from the real servers' usage shapes, absent where a server does
// not give them.
import { describe, expect, it } from "vitest";
import { chatStream, chatText, responsesStream } from "./fixtures/real_streams.ts";
import { run, useProviderClients } from "./helpers.ts";

const { setup } = useProviderClients();

describe("usage details", () => {
  it("Responses: input_tokens_details.cached_tokens and output_tokens_details.reasoning_tokens", async () => {
    const events = responsesStream([{ type: "message", id: "msg_1", text: "done" }], {
      usage: { input_tokens: 5000, output_tokens: 300, cached_tokens: 4096, reasoning_tokens: 256 },
    });
    const { client } = await setup([{ events }]);
    const { response } = await run(client);
    expect(response.usage).toEqual({
      input_tokens: 5000,
      output_tokens: 300,
      cached_input_tokens: 4096,
      reasoning_output_tokens: 256,
    });
  });

  it("Chat Completions from OpenAI: prompt_tokens_details and completion_tokens_details", async () => {
    const events = chatStream("openai", chatText("done", 2), {
      usage: { prompt_tokens: 2000, completion_tokens: 90, cached_tokens: 1024, reasoning_tokens: 64 },
    });
    const { client } = await setup([{ events }], { profile: { wire_api: "chat" } });
    const { response } = await run(client);
    expect(response.usage).toEqual({
      input_tokens: 2000,
      output_tokens: 90,
      cached_input_tokens: 1024,
      reasoning_output_tokens: 64,
    });
  });

  it("Chat Completions from vLLM, llama-server and Ollama: only the two totals", async () => {
    for (const server of ["vllm", "llama.cpp", "ollama"] as const) {
      const events = chatStream(server, chatText("done", 2), { usage: { prompt_tokens: 70, completion_tokens: 9 } });
      const { client } = await setup([{ events }], { profile: { wire_api: "chat" } });
      const { response } = await run(client);
      expect(response.usage, server).toEqual({ input_tokens: 70, output_tokens: 9 });
    }
  });
});
