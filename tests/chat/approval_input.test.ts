// The approval question takes a whole answer and Enter, in a terminal and from a pipe; what is typed while it is
// asked never becomes a prompt for the model.
import { describe, expect, it } from "vitest";
import { useCliHarness } from "../support/cli_harness.ts";
import { useSandboxAndProvider } from "../support/config_files.ts";
import { sse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { fakeTerminal, startChat } from "./fake_terminal.ts";

const HINT = "answer y, yes, n, no, a, always, k or keep, then Enter";
const bashCall = (id: string, command = "echo ran-ok; true") =>
  toolCallResponse([{ call_id: id, name: "bash", arguments: { command } }]);

describe("approval answers in a terminal", () => {
  const fixture = useSandboxAndProvider();

  it("takes `yes` typed key by key and Enter; none of it is sent to the model as a prompt", async () => {
    fixture.provider.push(bashCall("c1"), textResponse(["all done"]));
    const term = fakeTerminal();
    const { app, running } = startChat(term, fixture.sandbox, fixture.provider);
    await term.seen("ready");
    term.input.write("run it\r");
    await term.seen("[a]lways for this session");
    for (const key of ["y", "e", "s"]) {
      term.input.write(key);
      await term.settle();
    }
    // Typed, not yet answered: the question shows the word after it.
    await term.seen("for good yes");
    expect(term.text()).not.toContain("approved");
    term.input.write("\r");
    await term.seen("· done in 2 steps");
    expect(term.text()).toContain("  approved");
    expect(term.text()).toContain("✓ ran-ok");
    await term.settle();
    // The prompt and the tool result: no third request with "es" (or anything else) as a new prompt.
    expect(fixture.provider.requests).toHaveLength(2);
    app.stop(0);
    expect(await running).toBe(0);
    expect(fixture.provider.requests).toHaveLength(2);
  });

  it("asks again after anything but an allowed answer, in any case; NO denies, ALWAYS remembers", async () => {
    fixture.provider.push(
      bashCall("c1"),
      textResponse(["first"]),
      bashCall("c2", "echo second; true"),
      textResponse(["x"]),
    );
    const term = fakeTerminal();
    const { app, running } = startChat(term, fixture.sandbox, fixture.provider);
    await term.seen("ready");
    term.input.write("go\r");
    await term.seen("[a]lways for this session");
    term.input.write("sure\r");
    await term.seen(HINT);
    // An empty Enter is no answer either.
    term.input.write("\r");
    await term.settle();
    expect(term.text()).not.toMatch(/approved|denied/);
    term.input.write("NO\r");
    await term.seen("· done in 2 steps");
    expect(term.text()).toContain("  denied");
    term.input.write("again\r");
    await term.seen("Run: echo second");
    await term.settle();
    term.input.write("Always\r");
    await term.until((text) => text.split("· done in 2 steps").length === 3, "the second turn's end");
    // The engine offered the rule for the part that is not read-only; "always" grants it for the session.
    expect(term.text()).toContain("approved (always for this session: bash(true))");
    app.stop(0);
    expect(await running).toBe(0);
  });

  it("does not queue a lone approval word typed while a turn runs with no question open", async () => {
    fixture.provider.push(
      { events: [sse.textDelta("working on it")], mode: "chunked", end: "hang" },
      textResponse(["queued answer done"]),
    );
    const term = fakeTerminal();
    const { app, running } = startChat(term, fixture.sandbox, fixture.provider);
    await term.seen("ready");
    term.input.write("start\r");
    await term.seen("working on it");
    term.input.write("yes\r");
    await term.seen('not sent: "yes" looks like an approval answer, and no question is open');
    // A real prompt typed during the turn is still queued as before.
    term.input.write("and then this\r");
    await term.seen("queued at position 1");
    term.input.write("\x1b");
    await term.seen("queued answer done");
    expect(fixture.provider.requests).toHaveLength(2);
    expect(fixture.provider.requests[1]!.body.input.at(-1)).toEqual({ role: "user", content: "and then this" });
    app.stop(0);
    expect(await running).toBe(0);
  });

  it("echoes a typed slash command into the transcript like a prompt", async () => {
    const term = fakeTerminal();
    const { app, running } = startChat(term, fixture.sandbox, fixture.provider);
    await term.seen("ready");
    term.input.write("/usage\r");
    await term.seen("last turn: no turn yet");
    // Committed in bold like a sent prompt (the prompt being typed is not bold), before the command's answer.
    const echo = "\x1b[1m› \x1b[22m\x1b[1m/usage\x1b[22m";
    expect(term.written()).toContain(echo);
    expect(term.written().indexOf(echo)).toBeLessThan(term.written().indexOf("last turn: no turn yet"));
    app.stop(0);
    expect(await running).toBe(0);
  });
});

describe("approval answers from a pipe", () => {
  const harness = useCliHarness();

  it("says it read the answer from stdin, and asks again after a line that is no answer", async () => {
    harness.provider.push(bashCall("c1"), textResponse(["finished"]));
    const result = await harness.start(["chat"], { stdin: "run it\nmaybe\nYES\n" }).done;
    expect(result.code).toBe(0);
    const out = result.stdout;
    expect(out).toContain(`approval: "maybe" is not an answer; ${HINT}`);
    expect(out.match(/Allow\? \[y\]es \/ \[n\]o \/ \[a\]lways for this session \/ \[k\]eep for good:/g))
      .toHaveLength(2);
    expect(out).toContain("approval: yes (read from stdin)");
    expect(out).toContain("✓ ran-ok");
    // "maybe" was an answer attempt, not a prompt: only the prompt and the tool result reached the model.
    expect(harness.provider.requests).toHaveLength(2);
  });

  it("denies at the end of input and says so; echoes slash commands", async () => {
    harness.provider.push(bashCall("c1"), textResponse(["finished"]));
    const result = await harness.start(["chat"], { stdin: "/usage\nrun it\n" }).done;
    expect(result.code).toBe(0);
    const lines = result.stdout.split("\n");
    expect(lines.indexOf("› /usage")).toBeGreaterThan(-1);
    expect(lines.indexOf("› /usage")).toBeLessThan(lines.findIndex((line) => line.startsWith("last turn:")));
    expect(lines).toContain("approval: no (end of input)");
    expect(result.stdout).toContain("denied");
  });
});
