// Property: however a server splits and interleaves tool-call fragments by index, the calls come out whole
// (spec §8.3 accumulation), over real HTTP against the fake provider.
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chat, type FakeProvider, startFakeProvider } from "../support/fake_provider.ts";
import { makeClient, run } from "./helpers.ts";
import type { ProviderClient } from "../../lib/provider/types.ts";

let fake: FakeProvider;
let client: ProviderClient;

beforeAll(async () => {
  fake = await startFakeProvider();
  client = makeClient(fake.url, { profile: { wire_api: "chat" }, limits: { max_retries: 0 } }).client;
});

afterAll(async () => {
  await client.close();
  await fake.close();
});

const callArbitrary = fc.record({
  id: fc.stringMatching(/^call_[a-z0-9]{1,8}$/),
  name: fc.constantFrom("read", "bash", "write", "web_fetch"),
  args: fc.dictionary(fc.string({ maxLength: 6 }), fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean()), {
    maxKeys: 4,
  }),
});

/** Cuts `text` at the given points (by UTF-16 index, as a JSON string fragment may be). */
function pieces(text: string, cuts: number[]): string[] {
  const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let last = 0;
  for (const point of [...points, text.length]) {
    out.push(text.slice(last, point));
    last = point;
  }
  return out;
}

describe("Chat Completions tool-call fragments", () => {
  it("reassembles calls split into fragments and interleaved by index", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.uniqueArray(callArbitrary, { minLength: 1, maxLength: 4, selector: (call) => call.id }),
        fc.array(fc.nat(), { maxLength: 12 }),
        fc.array(fc.nat(), { maxLength: 40 }),
        async (calls, cuts, order) => {
          // One queue of fragments per call: id, then name, then the argument pieces.
          const queues = calls.map((call, index) => [
            { index, id: call.id, type: "function" },
            { index, name: call.name },
            ...pieces(JSON.stringify(call.args), cuts).map((fragment) => ({ index, arguments: fragment })),
          ]);
          const events = [];
          let turn = 0;
          while (queues.some((queue) => queue.length > 0)) {
            const open = queues.filter((queue) => queue.length > 0);
            const queue = open[(order[turn++ % Math.max(order.length, 1)] ?? 0) % open.length]!;
            events.push(chat.toolCalls(queue.shift()!));
          }
          fake.push({ events: [...events, chat.finish("tool_calls"), chat.done()] });
          const { response } = await run(client);
          expect(response.calls).toEqual(
            calls.map((call) => ({ call_id: call.id, name: call.name, arguments: call.args })),
          );
        },
      ),
      { numRuns: 60 },
    );
  });
});
