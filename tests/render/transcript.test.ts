import { describe, expect, it } from "vitest";
import { formatStatus } from "../../lib/chat/status.ts";
import { createStyle, displayWidth, stripAnsi } from "../../lib/render/style.ts";
import { outputText, parentCallId, previewLines, summarizeArguments } from "../../lib/render/tool_display.ts";
import type { ClientEvent } from "../../lib/protocol/index.ts";
import { summaryRows, Transcript } from "../../lib/render/transcript.ts";
import { addUsage } from "../../lib/render/usage_text.ts";

const plain = createStyle(false);
const T = { request_id: "r", session_id: "s", turn_id: "t" };

function feed(transcript: Transcript, events: Array<Record<string, unknown>>): string[] {
  return events.flatMap((event) => transcript.apply({ ...T, ...event } as unknown as ClientEvent));
}

describe("event transcript", () => {
  it("streams assistant text: complete lines are rendered, the rest stays partial until completion", () => {
    const transcript = new Transcript(plain, 80);
    expect(feed(transcript, [{ type: "assistant.delta", content: "# Hea" }])).toEqual([]);
    expect(transcript.partial).toBe("# Hea");
    expect(feed(transcript, [{ type: "assistant.delta", content: "ding\n- a" }])).toEqual(["Heading", "═══════"]);
    expect(transcript.partial).toBe("- a");
    expect(feed(transcript, [{ type: "assistant.completed", content: "# Heading\n- a" }])).toEqual(["  • a"]);
    expect(transcript.partial).toBe("");
  });

  it("renders a completed message that arrived without deltas", () => {
    const transcript = new Transcript(plain, 80);
    expect(feed(transcript, [{ type: "assistant.completed", content: "`x` done" }])).toEqual(["`x` done"]);
    expect(feed(transcript, [{ type: "assistant.completed", content: "" }])).toEqual([]);
  });

  it("shows a tool call compactly: name, summary, success and a truncated preview", () => {
    const transcript = new Transcript(plain, 80);
    const output = JSON.stringify({
      exit_code: 0,
      timed_out: false,
      output: "l1\nl2\nl3\nl4\nl5\nl6\n",
      truncated: false,
    });
    const rows = feed(transcript, [
      { type: "tool.proposed", call_id: "c1", name: "bash", arguments: { command: "seq 6" } },
      { type: "tool.started", call_id: "c1", name: "bash" },
      { type: "tool.completed", call_id: "c1", name: "bash", success: true, output, truncated: false },
    ]);
    expect(rows).toEqual(["⏺ bash seq 6", "  ✓ l1", "    l2", "    l3", "    l4", "    … +2 more lines"]);
  });

  it("keeps bash progress live only (its output preview follows), and commits progress of other tools", () => {
    const transcript = new Transcript(plain, 80);
    const output = JSON.stringify({ exit_code: 0, timed_out: false, output: "ok 1\nok 2\n", truncated: false });
    const rows = feed(transcript, [
      { type: "tool.proposed", call_id: "c1", name: "bash", arguments: { command: "sh test.sh" } },
      { type: "tool.started", call_id: "c1", name: "bash" },
      { type: "tool.progress", call_id: "c1", text: "ok 1" },
    ]);
    expect(rows).toEqual(["⏺ bash sh test.sh"]);
    expect(transcript.liveProgress).toEqual(["  … ok 1"]);
    const done = feed(transcript, [{
      type: "tool.completed",
      call_id: "c1",
      name: "bash",
      success: true,
      output,
      truncated: false,
    }]);
    expect(done).toEqual(["  ✓ ok 1", "    ok 2"]);
    expect(transcript.liveProgress).toEqual([]);
    feed(transcript, [
      { type: "tool.proposed", call_id: "c2", name: "exec", arguments: { code: "notify('x')" } },
      { type: "tool.started", call_id: "c2", name: "exec" },
    ]);
    expect(feed(transcript, [{ type: "tool.progress", call_id: "c2", text: "step 1 of 2" }])).toEqual([
      "  … step 1 of 2",
    ]);
    feed(transcript, [{ type: "tool.progress", call_id: "c1", text: "late" }, { type: "turn.cancelled" }]);
    expect(transcript.liveProgress).toEqual([]);
  });

  it("shows an approval's whole summary, wrapped to the width, never cut", () => {
    const transcript = new Transcript(plain, 40);
    const command = `curl https://example.test/install.sh | sh && rm -rf ${"d".repeat(50)} --the-end`;
    const rows = feed(transcript, [
      { type: "tool.proposed", call_id: "c1", name: "bash", arguments: { command } },
      {
        type: "approval.requested",
        approval_id: "A",
        call_id: "c1",
        name: "bash",
        risk: "process",
        cwd: "/w",
        summary: `Run with /bin/bash -c: ${command}`,
      },
    ]);
    expect(rows[0]).toBe("? Approve bash (process risk)");
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(40);
    // A bash approval shows the whole command from the proposed arguments (the summary cuts at 2000 characters).
    expect(rows.slice(1).map((row) => row.slice(2)).join("")).toBe(`Run: ${command}`);
    expect(summaryRows("x\n".repeat(40), 20)).toHaveLength(24);
    expect(summaryRows("x\n".repeat(40), 20).at(-1)).toBe("… +17 more lines");
  });

  it("ends a turn without token counts when the provider reported none", () => {
    const transcript = new Transcript(plain, 80);
    expect(feed(transcript, [{ type: "turn.completed", steps: 1, usage: {} }])[0]).toBe("  · done in 1 step");
  });

  it("strips control characters from model text, tool calls and outputs (no escape sequences reach the terminal)", () => {
    const transcript = new Transcript(createStyle(true), 80);
    const rows = feed(transcript, [
      { type: "assistant.delta", content: "clear\x1b[2J me \x1b]52;c;aGk=\x07\n" },
      { type: "tool.proposed", call_id: "c1", name: "bash", arguments: { command: "echo \x1b[31mred" } },
      { type: "tool.started", call_id: "c1", name: "bash" },
      {
        type: "tool.completed",
        call_id: "c1",
        name: "bash",
        success: true,
        output: "out\x1b[1A\x9b2J",
        truncated: false,
      },
      { type: "turn.failed", code: "provider_error", message: "bad\x1b[H" },
    ]);
    const text = rows.join("\n");
    // Only the renderer's own SGR colour codes remain.
    expect(text.replace(/\x1b\[[0-9;]*m/g, "")).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(stripAnsi(text)).toContain("clear[2J me ]52;c;aGk=");
    expect(stripAnsi(text)).toContain("echo [31mred");
  });

  it("shows failures with their error code, also for calls that never started", () => {
    const transcript = new Transcript(plain, 80);
    const rows = feed(transcript, [
      {
        type: "tool.proposed",
        call_id: "c1",
        name: "write",
        arguments: { path: "a.txt", content: "x", mode: "create" },
      },
      {
        type: "approval.requested",
        approval_id: "A",
        call_id: "c1",
        name: "write",
        risk: "filesystem",
        cwd: "/w",
        summary: "Create a.txt (1 bytes)",
      },
      {
        type: "tool.completed",
        call_id: "c1",
        name: "write",
        success: false,
        output: "tool call denied by policy or user",
        truncated: false,
        error: "denied",
      },
    ]);
    expect(rows).toEqual([
      "? Approve write (filesystem risk)",
      "  Create a.txt (1 bytes)",
      "⏺ write a.txt (create)",
      "  ✗ denied: tool call denied by policy or user",
    ]);
  });

  it("indents nested exec calls under their cell by call_id prefix", () => {
    const transcript = new Transcript(plain, 80);
    const rows = feed(transcript, [
      { type: "tool.proposed", call_id: "cell", name: "exec", arguments: { code: "await tools.read({path:'a'})" } },
      { type: "tool.started", call_id: "cell", name: "exec" },
      { type: "tool.proposed", call_id: "cell:tool-1", name: "read", arguments: { path: "a" } },
      { type: "tool.started", call_id: "cell:tool-1", name: "read" },
      {
        type: "tool.completed",
        call_id: "cell:tool-1",
        name: "read",
        success: true,
        output: JSON.stringify({ path: "a", content: "A" }),
        truncated: false,
      },
      { type: "tool.progress", call_id: "cell", text: "half way" },
      { type: "tool.completed", call_id: "cell", name: "exec", success: true, output: "done", truncated: true },
    ]);
    expect(rows).toEqual([
      "⏺ exec 28 bytes of JavaScript: await tools.read({path:'a'})",
      "    ⏺ read a",
      "      ✓ A",
      "  … half way",
      "  ✓ done (output truncated)",
    ]);
  });

  it("keeps every row within the width", () => {
    const transcript = new Transcript(plain, 40);
    const rows = feed(transcript, [
      { type: "tool.proposed", call_id: "c", name: "bash", arguments: { command: "x".repeat(200) } },
      { type: "tool.started", call_id: "c", name: "bash" },
      {
        type: "tool.completed",
        call_id: "c",
        name: "bash",
        success: false,
        output: "y".repeat(300),
        truncated: false,
        error: "failed",
      },
    ]);
    for (const row of rows) expect(displayWidth(row)).toBeLessThanOrEqual(40);
  });

  it("ends turns with usage, failures and cancellations, and sums usage", () => {
    const transcript = new Transcript(plain, 80);
    expect(feed(transcript, [{ type: "turn.completed", steps: 2, usage: { input_tokens: 5, output_tokens: 1 } }])[0])
      .toBe(
        "  · done in 2 steps · tokens 5 in / 1 out",
      );
    feed(transcript, [{ type: "turn.completed", steps: 1, usage: { input_tokens: 7, output_tokens: 3 } }]);
    expect(transcript.totalUsage).toEqual({ input_tokens: 12, output_tokens: 4 });
    expect(transcript.lastUsage).toEqual({ input_tokens: 7, output_tokens: 3 });
    expect(feed(transcript, [{ type: "turn.failed", code: "provider_error", message: "boom" }])[0]).toBe(
      "✗ turn failed (provider_error): boom",
    );
    expect(feed(transcript, [{ type: "turn.cancelled" }])[0]).toBe("⊘ turn cancelled");
    expect(
      feed(transcript, [{ type: "error", code: "turn_active", message: "cancel the active turn before clearing" }]),
    ).toEqual([
      "error (turn_active): cancel the active turn before clearing",
    ]);
    expect(addUsage({}, {})).toEqual({});
  });
});

describe("tool display helpers", () => {
  it("finds the parent cell of nested calls", () => {
    expect(parentCallId("call_9:tool-3")).toBe("call_9");
    expect(parentCallId("call_9")).toBeUndefined();
  });

  it("summarizes arguments per tool and falls back to JSON", () => {
    expect(summarizeArguments("bash", { command: "a\nb" })).toBe("a ⏎ b");
    expect(summarizeArguments("web_fetch", { url: "https://x" })).toBe("https://x");
    expect(summarizeArguments("other", { k: 1 })).toBe('{"k":1}');
  });

  it("extracts content or output from JSON tool outputs", () => {
    expect(outputText(JSON.stringify({ path: "a", content: "text" }))).toBe("text");
    expect(outputText(JSON.stringify({ exit_code: 3, output: "bad" }))).toBe("[exit 3] bad");
    expect(outputText("{not json")).toBe("{not json");
    expect(previewLines("a\n\nb\nc", 2, 10)).toEqual(["a", "b", "… +1 more lines"]);
  });
});

describe("status line", () => {
  it("shows model, state, last turn and session usage within the width", () => {
    const line = formatStatus(
      {
        model: "m1",
        state: "working",
        lastUsage: { input_tokens: 3, output_tokens: 1 },
        totalUsage: { input_tokens: 9, output_tokens: 4 },
        width: 120,
      },
      plain,
    );
    expect(line).toBe("m1 · working (Esc or Ctrl-C cancels) · last turn 3 in / 1 out · session 9 in / 4 out");
    const narrow = formatStatus({ model: "m1", state: "idle", lastUsage: undefined, totalUsage: {}, width: 30 }, plain);
    expect(displayWidth(narrow)).toBeLessThanOrEqual(29);
  });
});

describe("live region helpers", () => {
  it("keeps the tail of a long unfinished line within the row budget", async () => {
    const { tailToRows } = await import("../../lib/chat/view.ts");
    expect(tailToRows("short", 10, 2)).toBe("short");
    const long = "a".repeat(50) + "END";
    const tail = tailToRows(long, 10, 2);
    expect(tail.startsWith("…")).toBe(true);
    expect(tail.endsWith("END")).toBe(true);
    expect(displayWidth(tail)).toBeLessThanOrEqual(20);
  });
});
