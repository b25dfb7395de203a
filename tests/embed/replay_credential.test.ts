// The replay provider never receives a real credential or the user's custom headers: `--fake-responses` and the
// demo use a session-only placeholder that wins over every configuration layer and variable.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { existsSync } from "node:fs";
import { type EngineClient, openEngine } from "../../lib/embed/engine.ts";
import { prepareDemo } from "../../lib/chat/demo.ts";
import { type PreparedOptions, prepareOptions } from "../../lib/embed/session_options.ts";
import { REPLAY_PLACEHOLDER_KEY } from "../../lib/embed/replay_session.ts";
import { silentLogger } from "../../lib/util/log.ts";
import { type ConfigSandbox, createConfigSandbox } from "../support/config_files.ts";

const SECRET = "sk-real-user-secret";
let sandbox: ConfigSandbox;
let prepared: PreparedOptions | undefined;
let engine: EngineClient | undefined;

beforeEach(async () => {
  sandbox = await createConfigSandbox();
});

afterEach(async () => {
  await engine?.close();
  await prepared?.close();
  engine = undefined;
  prepared = undefined;
  await sandbox.cleanup();
});

async function runTurn(options: PreparedOptions, cwd: string): Promise<string> {
  let text = "";
  engine = await openEngine(options.options, silentLogger, { cwd }, (event) => {
    if (event.type === "assistant.delta") text += event.content;
  });
  const done = engine.waitFor((event) => event.type.startsWith("turn.") && event.type !== "turn.started");
  await engine.send({ type: "turn.start", prompt: "hi" });
  expect((await done).type).toBe("turn.completed");
  return text;
}

function expectOnlyPlaceholder(options: PreparedOptions): void {
  const headers = options.replay!.requestHeaders();
  expect(headers.length).toBeGreaterThan(0);
  for (const header of headers) {
    expect(header.authorization).toBe(`Bearer ${REPLAY_PLACEHOLDER_KEY}`);
    expect(JSON.stringify(header)).not.toContain(SECRET);
    expect(header["x-user-secret"]).toBeUndefined();
  }
}

describe("replay sessions", () => {
  it("send a placeholder, not the api_key, headers or profile from the user's configuration", async () => {
    await sandbox.writeUserConfig(
      [
        'provider_active = "work"',
        "[provider]",
        `api_key = "${SECRET}"`,
        `headers = { "X-User-Secret" = "${SECRET}" }`,
        "[providers.work]",
        'base_url = "http://127.0.0.1:9/v1"',
        'model = "work-model"',
        `api_key = "${SECRET}"`,
        'wire_api = "chat"',
        `headers = { "X-User-Secret" = "${SECRET}" }`,
        "",
      ].join("\n"),
    );
    const explicit = await sandbox.writeExplicitConfig(`[provider]\napi_key = "${SECRET}"\n`);
    const script = join(sandbox.root, "script.ndjson");
    await writeFile(
      script,
      [{ type: "response.output_text.delta", delta: "replayed" }, { type: "response.completed", response: {} }].map((
        e,
      ) => JSON.stringify(e)).join("\n"),
    );
    const env = sandbox.env({
      OPENAI_API_KEY: SECRET,
      SCV_PROVIDER: "work",
      SCV_CONFIG: explicit,
      SCV_API_KEY_ENV: "OPENAI_API_KEY",
    });
    prepared = await prepareOptions({ fakeResponses: script, provider: "work" }, env, sandbox.workspace);
    expect(await runTurn(prepared, sandbox.workspace)).toBe("replayed");
    expectOnlyPlaceholder(prepared);
    const configPath = prepared.options.configPath!;
    await engine!.close();
    engine = undefined;
    await prepared.close();
    prepared = undefined;
    expect(existsSync(configPath)).toBe(false);
  });

  it("the demo sends a placeholder too, whatever OPENAI_API_KEY holds", async () => {
    const demo = await prepareDemo(sandbox.env({ OPENAI_API_KEY: SECRET }));
    try {
      prepared = await demo.prepare({});
      expect(await runTurn(prepared, demo.workspace)).toContain("Let me read the README first.");
      expectOnlyPlaceholder(prepared);
    } finally {
      await engine?.close();
      engine = undefined;
      await prepared?.close();
      prepared = undefined;
      await demo.cleanup();
    }
  });
});
