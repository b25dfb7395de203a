// Usage and cost through the real server (docs/sessions.md#usage-and-cost): recorded Responses and Anthropic streams
// with cached and reasoning tokens priced from the shipped table, a price from `[model_prices]`, an unknown price
// that stays null, session totals in the journal, in `session.usage` and in `scv sessions --json` (also after a
// resume), and a budget that stops a turn after its running request.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { type FakeResponse, textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { type ServerClient, type ServerEvent, spawnServer } from "../support/server_client.ts";
import { resolveApproval, useServerHarness } from "../support/server_harness.ts";
import { cliCommand, cliEnv } from "../support/cli_command.ts";
import { responsesStream } from "../provider/fixtures/real_streams.ts";
import { replay } from "../provider/fixtures/anthropic_captures.ts";

const harness = useServerHarness();

/** A recorded-format Responses stream answering `text`, with the given usage (gpt-5's shape). */
function recorded(
  text: string,
  usage: { input_tokens: number; output_tokens: number; cached_tokens?: number; reasoning_tokens?: number },
): FakeResponse {
  return { events: responsesStream([{ type: "message", id: "msg_1", text, pieces: 2 }], { usage }) };
}

async function turn(client: ServerClient, prompt: string): Promise<ServerEvent[]> {
  const seen: ServerEvent[] = [];
  client.turn(prompt, `turn-${prompt}`);
  for (;;) {
    const event = await client.next();
    seen.push(event);
    if (event.type === "approval.requested") resolveApproval(client, event.approval_id, true);
    if (["turn.completed", "turn.failed", "turn.cancelled"].includes(event.type)) return seen;
  }
}

async function usage(client: ServerClient): Promise<ServerEvent> {
  client.send({ type: "session.usage", request_id: "usage", session_id: client.sessionId });
  return client.next("session.usage");
}

const journal = (id: string) =>
  readFileSync(join(harness.sandbox.home, "sessions", `${id}.ndjson`), "utf8").trim().split("\n").map((line) =>
    JSON.parse(line)
  );

function sessionsJson(): Array<Record<string, unknown>> {
  const { command, args } = cliCommand(["sessions", "--json", "--all"]);
  const stdout = execFileSync(command, args, {
    cwd: harness.sandbox.workspace,
    env: cliEnv(harness.env()),
    encoding: "utf8",
  });
  return JSON.parse(stdout);
}

describe("usage and cost", () => {
  it("prices cached and reasoning tokens of recorded Responses streams, and totals them everywhere", async () => {
    // gpt-5: $1.25 input, $0.125 cached input, $10 output per million tokens.
    const client = await harness.startServer(
      [
        recorded("first", { input_tokens: 1200, output_tokens: 300, cached_tokens: 1000, reasoning_tokens: 200 }),
        recorded("second", { input_tokens: 2000, output_tokens: 100, cached_tokens: 0, reasoning_tokens: 0 }),
        recorded("third", { input_tokens: 10, output_tokens: 10 }),
      ],
      { extraArgs: ["--model", "gpt-5-2025-08-07"] },
    );
    const id = client.sessionId;
    const first = (await turn(client, "one")).at(-1)!;
    expect(first).toMatchObject({
      type: "turn.completed",
      usage: { input_tokens: 1200, output_tokens: 300, cached_input_tokens: 1000, reasoning_output_tokens: 200 },
      // 200 × 1.25 + 1000 × 0.125 + 300 × 10, per million
      cost_usd: 0.003375,
    });
    const second = (await turn(client, "two")).at(-1)!;
    expect(second.cost_usd).toBe(0.0035);
    expect(await usage(client)).toMatchObject({
      type: "session.usage",
      request_id: "usage",
      model: "gpt-5-2025-08-07",
      usage: { input_tokens: 3200, output_tokens: 400, cached_input_tokens: 1000, reasoning_output_tokens: 200 },
      cost_usd: 0.006875,
      max_cost_usd: null,
      price: { input: 1.25, cached_input: 0.125, output: 10 },
      last_turn: { turn_id: second.turn_id, cost_usd: 0.0035 },
    });
    await client.finish();

    const records = journal(id).filter((record) => record.type === "turn.completed");
    expect(records.map((record) => record.cost_usd)).toEqual([0.003375, 0.0035]);
    expect(sessionsJson().find((session) => session.id === id)).toMatchObject({
      usage: { input_tokens: 3200, output_tokens: 400 },
      cost_usd: 0.006875,
    });

    // A resumed session goes on from its totals.
    const again = spawnServer({ args: harness.flags(harness.provider.url), env: harness.env() });
    await again.initialize();
    again.send({ type: "session.resume", request_id: "resume", session_id: id, model: "gpt-5-2025-08-07" });
    await again.next("session.started");
    await again.next("queue.snapshot");
    again.sessionId = id;
    await turn(again, "three");
    expect((await usage(again)).cost_usd).toBe(0.006875 + 0.0001125);
    await again.finish();
  });

  it("prices a recorded Anthropic stream's cache reads and writes", async () => {
    // claude-sonnet-5: $2 input, $0.20 cache reads, $2.50 cache writes, $10 output per million tokens.
    const client = await harness.startServer([replay("promptCache")], {
      toml: '[provider]\nkind = "anthropic"\n',
      extraArgs: ["--model", "claude-sonnet-5"],
      env: { ANTHROPIC_API_KEY: "sk-ant-api03-test-only", OPENAI_API_KEY: undefined },
    });
    const end = (await turn(client, "cached")).at(-1)!;
    expect(end).toMatchObject({
      type: "turn.completed",
      usage: { input_tokens: 9632, cached_input_tokens: 6289, cache_creation_input_tokens: 3337, output_tokens: 198 },
      // 6 × 2 + 6289 × 0.2 + 3337 × 2.5 + 198 × 10, per million
      cost_usd: 0.0115923,
    });
    await client.finish();
  });

  it("keeps an unknown price null, never 0, and takes prices from [model_prices]", async () => {
    const unknown = await harness.startServer([textResponse(["hi"], { input_tokens: 100, output_tokens: 5 })]);
    expect((await turn(unknown, "hi")).at(-1)).toMatchObject({ type: "turn.completed", cost_usd: null });
    expect(await usage(unknown)).toMatchObject({ cost_usd: null, price: null, usage: { input_tokens: 100 } });
    await unknown.finish();

    const priced = await harness.startServer([textResponse(["hi"], { input_tokens: 1000, output_tokens: 500 })], {
      toml: '[model_prices."fake-model"]\ninput = 3\noutput = 6\n',
    });
    expect((await turn(priced, "hi")).at(-1)).toMatchObject({ cost_usd: 0.006 });
    expect(await usage(priced)).toMatchObject({ price: { input: 3, cached_input: 3, output: 6 } });
    await priced.finish();
  });
});

describe("the budget", () => {
  const PRICED = '[model_prices."fake-model"]\ninput = 1\noutput = 10\n';

  it("stops a turn after the running request, and the next before its first", async () => {
    const client = await harness.startServer(
      [
        // 1000 × 1 + 200 × 10 = $0.003 per million… × 1000: the first request alone passes $0.002.
        {
          events: toolCallResponse([{ call_id: "c1", name: "bash", arguments: { command: "printf ran > ran.txt" } }])
            .events.map((event) =>
              (event as { type?: string }).type === "response.completed"
                ? { type: "response.completed", response: { usage: { input_tokens: 1000, output_tokens: 200 } } }
                : event
            ),
        },
        textResponse(["never asked"]),
      ],
      { toml: `${PRICED}[session]\nmax_cost_usd = 0.002\n` },
    );
    const events = await turn(client, "spend");
    const end = events.at(-1)!;
    expect(end).toMatchObject({ type: "turn.failed", code: "budget_exceeded" });
    expect(end.message).toContain("$0.0030");
    expect(end.message).toContain("max_cost_usd");
    expect(events.map((event) => event.type)).not.toContain("tool.started");
    expect(harness.provider.requests).toHaveLength(1);

    const next = (await turn(client, "again")).at(-1)!;
    expect(next).toMatchObject({ type: "turn.failed", code: "budget_exceeded" });
    expect(harness.provider.requests).toHaveLength(1);
    // What the failed turn spent counts: it is in the totals.
    expect(await usage(client)).toMatchObject({ cost_usd: 0.003, max_cost_usd: 0.002 });
    await client.finish();
  });

  it("--max-cost on the command line, and a model without a price stops at once", async () => {
    const flagged = await harness.startServer([textResponse(["a"], { input_tokens: 1000, output_tokens: 1000 })], {
      toml: PRICED,
      extraArgs: ["--max-cost", "0.005"],
    });
    expect((await turn(flagged, "one")).at(-1)).toMatchObject({ type: "turn.completed", cost_usd: 0.011 });
    expect((await turn(flagged, "two")).at(-1)).toMatchObject({ type: "turn.failed", code: "budget_exceeded" });
    await flagged.finish();

    // The user file still prices fake-model; this model has no price anywhere.
    const unpriced = await harness.startServer([textResponse(["a"])], {
      extraArgs: ["--model", "mystery-model", "--max-cost", "5"],
    });
    const end = (await turn(unpriced, "one")).at(-1)!;
    expect(end).toMatchObject({ type: "turn.failed", code: "budget_exceeded" });
    expect(end.message).toContain('[model_prices."mystery-model"]');
    await unpriced.finish();
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("scv exec --max-cost 0 spends nothing and exits 1", async () => {
    await harness.startProvider([textResponse(["never"])]);
    await harness.sandbox.writeUserConfig(PRICED);
    const { command, args } = cliCommand(["exec", "--max-cost", "0", "hello"]);
    let status = 0;
    let stderr = "";
    try {
      execFileSync(command, args, {
        cwd: harness.sandbox.workspace,
        env: cliEnv(harness.env({ SCV_BASE_URL: harness.provider.url, SCV_MODEL: "fake-model" })),
        input: "",
        encoding: "utf8",
        stdio: "pipe",
      });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: string }).stderr);
    }
    expect(status).toBe(1);
    expect(stderr).toContain("turn failed (budget_exceeded)");
    expect(harness.provider.requests).toHaveLength(0);
  });

  it("refuses a --max-cost that is not an amount", async () => {
    const { command, args } = cliCommand(["server", "--stdio", "--max-cost", "lots"]);
    let status = 0;
    let stderr = "";
    try {
      execFileSync(command, args, { env: cliEnv(harness.env()), input: "", encoding: "utf8", stdio: "pipe" });
    } catch (error) {
      status = (error as { status: number }).status;
      stderr = String((error as { stderr: string }).stderr);
    }
    expect(status).toBe(2);
    expect(stderr).toContain("--max-cost");
  });
});
