// `scv chat`'s long-session commands through the real CLI in plain line mode (docs/sessions.md): `/undo` takes back
// what a turn's bash did, files changed since are left alone and listed, `/rewind` lists the turns and the next line
// picks one and what to restore, `/compact FOCUS` has the model summarise and shows it, and `/usage` shows cached and
// reasoning tokens, the cost, the budget and the price.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { responsesStream } from "../provider/fixtures/real_streams.ts";
import { waitFor } from "../support/wait.ts";

const harness = useCliHarness();
const ws = (name: string) => join(harness.sandbox.workspace, name);

const bash = (command: string, id: string): FakeResponse =>
  toolCallResponse([{ call_id: id, name: "bash", arguments: { command } }]);

function chat(lines: string[], args: string[] = []) {
  return harness.start(["chat", ...args], { stdin: `${lines.join("\n")}\n` }).done;
}

/** The text the model was sent in request `index` (its input items, as JSON). */
const input = (index: number) => JSON.stringify(harness.provider.requests[index]!.body.input);
/** Output with its wrapping undone, so a long row compares as one line. */
const flat = (text: string) => text.replace(/\s+/g, " ");

describe("scv chat /undo and /rewind", () => {
  it(
    "/undo restores what the last turn's bash wrote and deleted, and drops the turn from the conversation",
    async () => {
      writeFileSync(ws("a.txt"), "a before\n");
      writeFileSync(ws("b.txt"), "b before\n");
      harness.provider.push(
        bash("printf 'a after\\n' > a.txt && rm b.txt && printf 'new\\n' > c.txt", "c1"),
        textResponse(["changed them"]),
        textResponse(["fresh answer"]),
      );
      const result = await chat(["change the files", "y", "/undo", "what now"]);
      expect(result.code).toBe(0);
      const out = flat(result.stdout);
      expect(out).toContain("rewound 1 turn: the code and the conversation");
      expect(out).toContain("restored 3: a.txt, b.txt, c.txt");
      expect(readFileSync(ws("a.txt"), "utf8")).toBe("a before\n");
      expect(readFileSync(ws("b.txt"), "utf8")).toBe("b before\n");
      expect(existsSync(ws("c.txt"))).toBe(false);
      // The next request knows nothing of the undone turn.
      expect(input(2)).toContain("what now");
      expect(input(2)).not.toContain("change the files");
      expect(input(2)).not.toContain("changed them");
    },
  );

  it("/undo leaves a file changed since the turn alone and lists it; /undo with nothing to undo says so", async () => {
    writeFileSync(ws("a.txt"), "a before\n");
    harness.provider.push(
      bash("printf 'a after\\n' > a.txt && printf 'b\\n' > b.txt", "c1"),
      textResponse(["done"]),
    );
    const child = harness.start(["chat"], { stdin: null });
    child.child.stdin!.write("change a\ny\n");
    await waitFor(() => child.stdout().includes("done in 2 steps"), { timeoutMs: 60_000, what: "the turn's end" });
    // The user edits a file the turn changed.
    writeFileSync(ws("a.txt"), "the user's edit\n");

    child.child.stdin!.end("/undo\n/undo\n");
    const result = await child.done;
    expect(result.code).toBe(0);
    const out = flat(result.stdout);
    expect(out).toContain("restored 1: b.txt");
    expect(out).toContain("left alone, changed since (conflicts) 1: a.txt");
    expect(readFileSync(ws("a.txt"), "utf8")).toBe("the user's edit\n");
    expect(existsSync(ws("b.txt"))).toBe(false);
    expect(out).toContain("error (turn_not_found): there is no turn to undo");
  });

  it("/rewind lists the turns; the next line picks one and restores its code only, then the conversation", async () => {
    writeFileSync(ws("notes.txt"), "v0\n");
    harness.provider.push(
      bash("printf 'v1\\n' > notes.txt", "c1"),
      textResponse(["first done"]),
      bash("printf 'v2\\n' > notes.txt", "c2"),
      textResponse(["second done"]),
      textResponse(["third answer"]),
      textResponse(["fourth answer"]),
    );
    const result = await chat([
      "first edit",
      "y",
      "second edit",
      "y",
      "/rewind",
      "7",
      "2 code",
      "after the code rewind",
      "/rewind 1 conversation",
      "after the conversation rewind",
    ]);
    expect(result.code).toBe(0);
    const out = flat(result.stdout);
    expect(out).toContain("Turns of this conversation, oldest first: 1 first edit 2 second edit");
    expect(out).toContain("type a turn number from 1 to 2");
    expect(out).toContain("rewound 1 turn: the code");
    expect(out).toContain("restored 1: notes.txt");
    // The code rewind kept the conversation: the next request still has both turns.
    expect(input(4)).toContain("second edit");
    expect(input(4)).toContain("after the code rewind");
    // The conversation rewind to before turn 1 leaves the files as they are (v1, from turn 1) and the history empty.
    expect(out).toContain("rewound 3 turns: the conversation");
    expect(readFileSync(ws("notes.txt"), "utf8")).toBe("v1\n");
    expect(input(5)).toContain("after the conversation rewind");
    expect(input(5)).not.toContain("first edit");
  });

  it("an empty line or nothing to rewind cancels /rewind, and the picker's answer is never sent", async () => {
    harness.provider.push(textResponse(["one"]), textResponse(["two"]));
    const result = await chat(["/rewind", "hello", "/rewind", "", "next prompt"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain("nothing to rewind: this conversation has no turns yet");
    expect(result.stdout).toContain("rewind cancelled");
    expect(harness.provider.requests).toHaveLength(2);
    expect(input(1)).toContain("next prompt");
  });
});

describe("scv chat /compact and /usage", () => {
  it("/compact FOCUS has the model summarise the older turns and shows the summary", async () => {
    await harness.sandbox.writeUserConfig("[compaction]\nkeep_turns = 1\n");
    harness.provider.push(
      textResponse(["one"]),
      textResponse(["two"]),
      textResponse(["SUMMARY: the parser bug is in lexer.ts"]),
      textResponse(["three"]),
    );
    const result = await chat(["first question", "second question", "/compact the parser bug", "third question"]);
    expect(result.code).toBe(0);
    const out = flat(result.stdout);
    expect(out).toContain("compacting the conversation…");
    expect(out).toMatch(/conversation compacted: 2 older messages summarised by the model, \d+ → \d+ tokens/);
    expect(out).toContain("SUMMARY: the parser bug is in lexer.ts");
    expect(input(2)).toContain("Pay particular attention to: the parser bug");
    expect(input(3)).toContain("SUMMARY: the parser bug is in lexer.ts");
    expect(input(3)).not.toContain("first question");
  });

  it(
    "/usage shows cached and reasoning tokens, the cost of the turn and the session, the budget and the price",
    async () => {
      // gpt-5: $1.25 input, $0.125 cached input, $10 output per million tokens.
      harness.provider.push({
        events: responsesStream([{ type: "message", id: "msg_1", text: "priced", pieces: 2 }], {
          usage: { input_tokens: 1200, output_tokens: 300, cached_tokens: 1000, reasoning_tokens: 200 },
        }),
      });
      const result = await chat(["a question", "/usage"], ["--model", "gpt-5", "--max-cost", "5"]);
      expect(result.code).toBe(0);
      const out = flat(result.stdout);
      expect(out).toContain("done in 1 step · tokens 1200 in / 300 out · $0.0034");
      expect(out).toContain("last turn: 1200 in (1000 cached) / 300 out (200 reasoning) · $0.0034");
      expect(out).toContain("this session: 1200 in (1000 cached) / 300 out (200 reasoning) · $0.0034");
      expect(out).toContain("budget: $0.0034 of $5.00 spent (max_cost_usd)");
      expect(out).toContain("price of gpt-5 per million tokens: $1.25 in, $0.125 cached, $10 out");
    },
  );

  it("/usage says when the model's price is unknown instead of showing a cost of 0", async () => {
    harness.provider.push(textResponse(["one"], { input_tokens: 2, output_tokens: 1 }));
    const result = await chat(["hello", "/usage"]);
    expect(result.code).toBe(0);
    const out = flat(result.stdout);
    expect(out).toContain(
      'this session: 2 in / 1 out · unknown: scv has no price for model fake-model; add [model_prices."fake-model"]',
    );
    expect(out).not.toContain("$0.0000");
  });
});
