import { describe, expect, it } from "vitest";
import { type ContextLimits, selectContext, trimHistory } from "../../lib/agent/context.ts";
import { compactionNote, groupHistory, historyBytes } from "../../lib/agent/history.ts";
import type { HistoryItem } from "../../lib/provider/types.ts";

const user = (content: string): HistoryItem => ({ kind: "user", content });
const assistant = (content: string, calls: Array<{ call_id: string; name: string }> = []): HistoryItem => ({
  kind: "assistant",
  content,
  calls: calls.map((call) => ({ ...call, arguments: {} })),
});
const result = (call_id: string, name: string, output: string, success = true): HistoryItem => ({
  kind: "tool_result",
  call_id,
  name,
  output,
  success,
});

const limits = (max_tokens: number, summary_max_chars = 6000): ContextLimits => ({
  max_tokens,
  reserve_output_tokens: 0 + 1,
  safety_margin_tokens: 1,
  bytes_per_token: 1,
  summary_max_chars,
});

describe("groupHistory", () => {
  it("starts a group at each user message so calls stay with their results", () => {
    const history = [
      user("a"),
      assistant("", [{ call_id: "c", name: "read" }]),
      result("c", "read", "x"),
      assistant("done"),
      user("b"),
      assistant("ok"),
    ];
    expect(groupHistory(history).map((group) => group.length)).toEqual([4, 2]);
    expect(groupHistory([assistant("orphan"), user("a")]).map((group) => group.length)).toEqual([1, 1]);
  });
});

describe("compactionNote", () => {
  it("lists bounded, flattened extracts per message and respects summary_max_chars", () => {
    const dropped = [
      user(`line one\nline two ${"x".repeat(300)}`),
      assistant("", [{ call_id: "c", name: "bash" }]),
      result("c", "bash", "boom", false),
      result("d", "read", "fine"),
      user("[SCV compacted 3 earlier messages. Bounded extracts follow.]\nuser: old"),
    ];
    const note = compactionNote(dropped, 6000);
    const lines = (note as { content: string }).content.split("\n");
    expect(lines[0]).toBe("[SCV compacted 5 earlier messages. Bounded extracts follow.]");
    expect(lines[1]).toBe(`user: ${"x".repeat(240)}`);
    expect(lines[2]).toBe("assistant: called bash");
    expect(lines[3]).toBe("tool bash (failed): boom");
    expect(lines[4]).toBe("tool read (ok): fine");
    expect(lines[5]).toBe("earlier: [SCV compacted 3 earlier messages. Bounded extracts follow.] user: old");
    expect(Array.from((compactionNote(dropped, 50) as { content: string }).content)).toHaveLength(50);
  });
});

describe("selectContext", () => {
  it("keeps everything that fits", () => {
    const history = [user("a"), assistant("b")];
    expect(selectContext(history, limits(1000), 10)).toEqual({ ok: true, items: history });
  });

  it("drops the oldest groups into a note and reports the token counts", () => {
    const history = [
      user("a".repeat(600)),
      assistant("one"),
      user("b".repeat(600)),
      assistant("two"),
      user("c".repeat(600)),
    ];
    // Groups of ≈ 675, 675 and 628 bytes; a one-group note is ≈ 350 bytes.
    const selection = selectContext(history, limits(1800), 100);
    expect(selection.ok).toBe(true);
    if (!selection.ok) return;
    expect(selection.items.slice(1)).toEqual(history.slice(2));
    expect((selection.items[0] as { content: string }).content.startsWith("[SCV compacted 2 earlier messages.")).toBe(
      true,
    );
    expect(selection.compacted).toMatchObject({ removed_messages: 2, before_tokens: historyBytes(history) });
    expect(selection.compacted!.after_tokens).toBe(historyBytes(selection.items));
    expect(selection.compacted!.after_tokens).toBeLessThanOrEqual(1800 - 2 - 100);
  });

  it("pulls the oldest kept group into the note when the note does not fit", () => {
    const history = [
      user("a".repeat(600)),
      assistant("one"),
      user("b".repeat(600)),
      assistant("two"),
      user("c".repeat(600)),
    ];
    // Budget 1598: groups 2+3 fit (≈ 1303 bytes) but not with a ≈ 350-byte note.
    const selection = selectContext(history, limits(1700), 100);
    expect(selection.ok).toBe(true);
    if (!selection.ok) return;
    expect(selection.compacted!.removed_messages).toBe(4);
    expect(selection.items.at(-1)).toEqual(history.at(-1));
    expect(selection.items).toHaveLength(2);
  });

  it("fails with the spec's context_limit messages, each naming the setting to change and to what", () => {
    const hint = "if the model's window is that large (a local server's own window is set there: llama-server -c, " +
      "vLLM --max-model-len, OLLAMA_CONTEXT_LENGTH)";
    expect(selectContext([user("a")], limits(100), 98)).toEqual({
      ok: false,
      message: "system prompt and tool schemas exceed context budget: they take about 98 tokens and " +
        "context.max_tokens = 100 leaves 98 after context.reserve_output_tokens (1) and context.safety_margin_tokens " +
        `(1); set context.max_tokens to at least 1024 ${hint}, or lower the reserves`,
    });
    expect(selectContext([user("a".repeat(2000))], limits(100), 0)).toEqual({
      ok: false,
      message: "newest turn exceeds context budget: it takes about 2028 tokens and 98 are left after the system " +
        `prompt, tool schemas and reserves; set context.max_tokens to at least 2048 ${hint}, or send less (a shorter ` +
        "prompt, fewer attachments, a lower tools.output_limit_bytes)",
    });
    const history = [user("a".repeat(100)), user("b".repeat(150))];
    const noteFails = selectContext(history, limits(190, 200), 0);
    expect(noteFails).toMatchObject({ ok: false });
    expect(!noteFails.ok && noteFails.message).toMatch(
      /^compaction note cannot fit context budget: lower context\.summary_max_chars \(now 200\) or set context\.max_tokens to at least 1024 if the model's window is that large/,
    );
  });

  it("never changes the history it was given", () => {
    const history = [user("a".repeat(300)), assistant("one"), user("b".repeat(300))];
    const copy = structuredClone(history);
    selectContext(history, limits(500), 0);
    expect(history).toEqual(copy);
  });
});

describe("trimHistory", () => {
  const trimLimits = (max_messages: number, max_history_bytes = 1_000_000) => ({
    max_messages,
    max_history_bytes,
    summary_max_chars: 6000,
  });

  it("leaves a history within the limits alone", () => {
    const history = [user("a"), assistant("b")];
    expect(trimHistory(history, 0, trimLimits(10))).toEqual({ ok: true, history });
  });

  it("turns the oldest groups into a note and reports the removal", () => {
    const history = [user("1"), assistant("one"), user("2"), assistant("two"), user("3"), assistant("three")];
    const trimmed = trimHistory(history, 4, trimLimits(4));
    expect(trimmed.ok).toBe(true);
    if (!trimmed.ok) return;
    // Dropping the first group still leaves 5 messages; dropping both leaves note + the turn.
    expect(trimmed.history).toHaveLength(3);
    expect(trimmed.history.slice(1)).toEqual(history.slice(4));
    expect((trimmed.history[0] as { content: string }).content).toBe(
      "[SCV compacted 4 earlier messages. Bounded extracts follow.]\nuser: 1\nassistant: one\nuser: 2\nassistant: two",
    );
    expect(trimmed.trimmed).toEqual({ removed_messages: 4, history_bytes: historyBytes(trimmed.history) });
  });

  it("fails when the new turn alone exceeds a limit", () => {
    const history = [
      user("old"),
      user("new"),
      assistant("", [{ call_id: "c", name: "x" }]),
      result("c", "x", "y"),
      assistant("z"),
    ];
    expect(trimHistory(history, 1, trimLimits(3))).toEqual({
      ok: false,
      message: "active turn exceeds session history limit",
    });
    expect(trimHistory([user("x".repeat(100))], 0, trimLimits(10, 50))).toEqual({
      ok: false,
      message: "active turn exceeds session history limit",
    });
  });
});
