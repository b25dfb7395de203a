// Issue 14 "Done when": `scv exec` with a 1 MB file write and a 100k-token answer succeeds on both wires, the
// provider framing them as the real servers do (one small delta per event, ~100–250 bytes of framing each), so
// the wire is many times max_response_bytes' old 4 MiB.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { chatStream, chatText, responsesStream, split } from "../provider/fixtures/real_streams.ts";
import type { SseItem } from "../support/fake_provider.ts";
import { serveModelInfo } from "../provider/fixtures/model_servers.ts";

const harness = useCliHarness();

// A 1 MB write needs arguments above the 256 KiB default, SSE events that fit them (the Responses API repeats the
// whole arguments in output_item.done and response.completed) and a frame limit that fits them (§7.2 validation).
const LIMITS_TOML =
  "[provider_limits]\nmax_tool_arguments_bytes = 2097152\nmax_sse_event_bytes = 4194304\n\n[protocol]\nmax_server_frame_bytes = 16777216\n";
const CONTENT = "0123456789abcdef\n".repeat(58_824).slice(0, 1_000_000);
const ARGUMENTS = JSON.stringify({ path: "big.txt", content: CONTENT, mode: "create" });
/** 100,000 tokens of about four bytes each. */
const ANSWER = Array.from({ length: 100_000 }, (_, index) => ` w${index % 10}x`).join("");

function wireBytes(events: SseItem[]): number {
  return events.reduce((sum, item) => sum + Buffer.byteLength((item as { raw: string }).raw), 0);
}

describe("scv exec with large outputs on both wires", () => {
  for (const wire of ["responses", "chat"] as const) {
    it(`${wire}: writes a 1 MB file, then streams a 100k-token answer`, async () => {
      const writeEvents = wire === "responses"
        ? responsesStream([{
          type: "function_call",
          id: "fc_big",
          call_id: "call_big",
          name: "write",
          arguments: ARGUMENTS,
          pieces: 100_000,
        }])
        : chatStream("vllm", [{
          tool_call: { index: 0, id: "call_big", name: "write", arguments: ARGUMENTS, pieces: 100_000 },
        }]);
      const answerEvents = wire === "responses"
        ? responsesStream([{ type: "message", id: "msg_big", text: ANSWER, pieces: 100_000 }])
        : chatStream("vllm", chatText(ANSWER, 100_000));
      expect(split(ANSWER, 100_000)).toHaveLength(100_000);
      // The old limit counted these bytes.
      expect(wireBytes(writeEvents)).toBeGreaterThan(4 * 1024 * 1024 + ARGUMENTS.length);
      expect(wireBytes(answerEvents)).toBeGreaterThan(4 * 1024 * 1024 + ANSWER.length);
      harness.provider.push({ events: writeEvents }, { events: answerEvents });
      await harness.sandbox.writeUserConfig(`${LIMITS_TOML}\n[provider]\nwire_api = "${wire}"\n`);
      // The turn holds ~350k tokens (1 MB at 3 bytes per token): a model with a 1M window, known (gpt-4.1) or
      // reported by the server (a vLLM serving a 1M-context model).
      const model = wire === "responses" ? "gpt-4.1" : "Qwen/Qwen2.5-7B-Instruct-1M";
      if (wire === "chat") serveModelInfo(harness.provider, "vllm", { model, window: 1_010_000 });

      const result = await harness.start(["exec", "--yes", "write the big file"], { env: { SCV_MODEL: model } }).done;
      expect(result.stderr).toContain("approved (--yes): write");
      expect(result.code).toBe(0);
      expect(result.stdout).toBe(`${ANSWER}\n`);
      expect(await readFile(join(harness.sandbox.workspace, "big.txt"), "utf8")).toBe(CONTENT);
      // The second request carried the call back with its 1 MB of arguments.
      const second = harness.provider.requests[1]!.body;
      const replayed = wire === "responses"
        ? second.input[1].arguments
        : second.messages[2].tool_calls[0].function.arguments;
      expect(JSON.parse(replayed).content).toBe(CONTENT);
    });
  }
});
