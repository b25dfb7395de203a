// The journal's records of issue 31 read back (lib/sessions/read.ts): a compaction replaces the front of the
// history, a rewind of the conversation returns it to before a turn and drops the later turns from the replay, a
// code rewind marks its turns (only when it put every file back), snapshots and spending are kept per turn.
import { describe, expect, it } from "vitest";
import { parseJournal } from "../../lib/sessions/index.ts";

const header = { type: "session", v: 1, id: "6f1c2a5e-0000-4000-8000-000000000000", workspace: "/w", model: "m" };
const user = (content: string) => ({ kind: "user", content });
const answer = (content: string) => ({ kind: "assistant", content, calls: [] });

function read(records: object[]) {
  const result = parseJournal(`${[header, ...records].map((record) => JSON.stringify(record)).join("\n")}\n`);
  if (!result.ok) throw new Error(result.message);
  return result.journal;
}

function turn(id: string, prompt: string, reply: string, extra: object = {}, snapshots = ["", ""]) {
  return [
    { type: "turn.started", at: "t", turn_id: id, prompt, ...(snapshots[0] ? { snapshot: snapshots[0] } : {}) },
    {
      type: "turn.completed",
      at: "t",
      turn_id: id,
      items: [user(prompt), answer(reply)],
      ...(snapshots[1] ? { snapshot: snapshots[1] } : {}),
      ...extra,
    },
  ];
}

describe("issue 31 records", () => {
  it("apply a compaction and keep each turn's snapshots and history", () => {
    const journal = read([
      ...turn("T1", "one", "first", {}, ["s1", "e1"]),
      ...turn("T2", "two", "second", {}, ["s2", "e2"]),
      {
        type: "compacted",
        at: "t",
        drop: 2,
        summary: user("[SCV compacted 2 earlier messages into this summary.]\nS"),
        method: "model",
      },
      ...turn("T3", "three", "third"),
    ]);
    expect(journal.history.map((item) => ("content" in item ? item.content : ""))).toEqual([
      "[SCV compacted 2 earlier messages into this summary.]\nS",
      "two",
      "second",
      "three",
      "third",
    ]);
    expect(journal.stored.map((stored) => [stored.turn_id, stored.snapshots, stored.history.length])).toEqual([
      ["T1", { before: "s1", after: "e1" }, 0],
      ["T2", { before: "s2", after: "e2" }, 2],
      ["T3", undefined, 3],
    ]);
    expect(journal.turns.map((turn) => turn.turn_id)).toEqual(["T1", "T2", "T3"]);
  });

  it("rewind the conversation to before a turn, and mark code rewinds that were complete", () => {
    const journal = read([
      ...turn("T1", "one", "first"),
      ...turn("T2", "two", "second"),
      ...turn("T3", "three", "third"),
      { type: "rewound", at: "t", turn_id: "T3", restore: "code", turns: ["T3"], complete: false },
      { type: "rewound", at: "t", turn_id: "T2", restore: "code", turns: ["T2", "T3"], complete: true },
      { type: "rewound", at: "t", turn_id: "T3", restore: "conversation", turns: ["T3"] },
    ]);
    expect(journal.history.map((item) => ("content" in item ? item.content : ""))).toEqual([
      "one",
      "first",
      "two",
      "second",
    ]);
    expect(journal.turns.map((turn) => turn.prompt)).toEqual(["one", "two"]);
    expect(journal.stored.map((stored) => [stored.turn_id, stored.code_rewound])).toEqual([
      ["T1", false],
      ["T2", true],
    ]);
    // A rewind naming a turn no longer in the conversation changes nothing.
    const same = read([...turn("T1", "one", "first"), {
      type: "rewound",
      at: "t",
      turn_id: "T9",
      restore: "both",
      turns: [],
    }]);
    expect(same.history).toHaveLength(2);
  });

  it("sum what the turns and compactions spent, failed turns included", () => {
    const journal = read([
      ...turn("T1", "one", "first", { usage: { input_tokens: 100, output_tokens: 10 }, cost_usd: 0.25 }),
      { type: "turn.started", at: "t", turn_id: "T2", prompt: "two" },
      {
        type: "turn.ended",
        at: "t",
        turn_id: "T2",
        status: "failed",
        code: "budget_exceeded",
        usage: { input_tokens: 50, output_tokens: 5, cached_input_tokens: 40 },
        cost_usd: 0.125,
      },
      { type: "compacted", at: "t", drop: 0, summary: user("S"), method: "note", usage: {}, cost_usd: null },
    ]);
    expect(journal.totals).toEqual({
      usage: { input_tokens: 150, output_tokens: 15, cached_input_tokens: 40 },
      cost_usd: 0.375,
      known_cost_usd: 0.375,
    });
  });
});
