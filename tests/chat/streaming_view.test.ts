// The chat's live region while text streams: finished rows of a long line are committed at word boundaries before
// the line (or the turn) ends, and the unfinished row shows whole words, never a word cut at the terminal edge.
import { describe, expect, it } from "vitest";
import { useSandboxAndProvider } from "../support/config_files.ts";
import { sse } from "../support/fake_provider.ts";
import { fakeTerminal, startChat } from "./fake_terminal.ts";

const fixture = useSandboxAndProvider();

describe("streaming in the chat", () => {
  it("commits word-wrapped rows of a line that has not ended, while the turn still runs", async () => {
    fixture.provider.push({
      events: [sse.textDelta("alpha beta gamma delta epsilon zeta eta theta io"), sse.textDelta("ta kappa lambda")],
      mode: "chunked",
      end: "hang",
    });
    const term = fakeTerminal();
    const { app, running } = startChat(term, fixture.sandbox, fixture.provider, { columns: 30, color: false });
    await term.seen("ready");
    term.input.write("go\r");
    // 30 columns: rows break between words while the line streams (the old live region showed the raw line,
    // which the terminal cut at the edge, mid-word).
    await term.seen("alpha beta gamma delta epsilon\nzeta eta theta io\n");
    await term.seen("zeta eta theta iota kappa\nlambda\n");
    expect(term.text()).not.toContain("epsilon zeta");
    term.input.write("\x1b");
    await term.seen("⊘ turn cancelled");
    app.stop(0);
    expect(await running).toBe(0);
  });
});
