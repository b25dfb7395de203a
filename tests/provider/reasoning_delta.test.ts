// Reasoning a provider shows reaches the caller through onReasoningDelta, on both wires, and never as answer text.
import { describe, expect, it } from "vitest";
import { chat, sse } from "../support/fake_provider.ts";
import { providerRequest, useProviderClients } from "./helpers.ts";
import type { ProviderClient } from "../../lib/provider/types.ts";

const responses = useProviderClients();
const chatWire = useProviderClients({ profile: { wire_api: "chat" } });

async function stream(client: ProviderClient) {
  const text: string[] = [];
  const thoughts: string[] = [];
  const response = await client.stream(providerRequest({}), {
    signal: new AbortController().signal,
    onTextDelta: (delta) => void text.push(delta),
    onReasoningDelta: (delta) => void thoughts.push(delta),
  });
  return { response, text, thoughts };
}

describe("reasoning deltas", () => {
  it("Responses: summary and reasoning text deltas go to onReasoningDelta, in order, not into the text", async () => {
    const { client } = await responses.setup([{
      events: [
        { type: "response.reasoning_summary_text.delta", delta: "Plan: " },
        { type: "response.reasoning_text.delta", delta: "look first." },
        { type: "response.reasoning_summary_text.delta", delta: "" },
        sse.textDelta("Answer."),
        sse.completed(),
      ],
    }]);
    const { response, text, thoughts } = await stream(client);
    expect(thoughts).toEqual(["Plan: ", "look first."]);
    expect(text).toEqual(["Answer."]);
    expect(response.text).toBe("Answer.");
  });

  it("Chat Completions: reasoning_content and reasoning go to onReasoningDelta and stay in the replay", async () => {
    const { client } = await chatWire.setup([{
      events: [
        chat.delta({ role: "assistant", reasoning_content: "first " }),
        chat.delta({ reasoning: "second", content: "Hi" }),
        chat.finish("stop"),
        chat.done(),
      ],
    }]);
    const { response, text, thoughts } = await stream(client);
    expect(thoughts).toEqual(["first ", "second"]);
    expect(text).toEqual(["Hi"]);
    expect(response.text).toBe("Hi");
    expect(response.replay).toEqual({ reasoning_text: { field: "reasoning_content", text: "first second" } });
  });
});
