// Spec §11 item 17: configuration errors surface as session.start `error` replies with the exact messages,
// before any network I/O; the client may retry.
import { mkdir, symlink, writeFile } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { fakeProfileToml } from "../support/config_files.ts";
import { textResponse, toolCallResponse } from "../support/fake_provider.ts";
import { useServerHarness } from "../support/server_harness.ts";

// Configuration rules: the server runs in-process, with the sandbox's environment as its own.
const harness = useServerHarness(
  async (harness) => {
    await harness.startProvider([textResponse(["hi"])]);
  },
  { inProcess: true },
);

async function startError(
  options: { args?: string[]; env?: Record<string, string | undefined>; fields?: Record<string, unknown> },
) {
  const client = harness.server({
    args: options.args,
    env: harness.sandbox.env(options.env ?? { OPENAI_API_KEY: "test-only" }),
  });
  await client.initialize();
  client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace, ...options.fields });
  const reply = await client.next();
  await client.finish();
  expect(harness.provider.connections()).toBe(0);
  return reply;
}

/** One no-tools turn on a server started with only `--base-url`: the instructions the provider received. */
async function instructionsOfOneTurn(): Promise<unknown> {
  const client = harness.server({
    args: ["--stdio", "--base-url", harness.provider.url],
    env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }),
  });
  await client.start({ cwd: harness.sandbox.workspace, no_tools: true });
  client.turn("hi");
  expect(await client.next(["turn.completed", "turn.failed"])).toMatchObject({ type: "turn.completed" });
  await client.finish();
  return harness.provider.requests[0]!.body.instructions;
}

const failure = (message: string) => ({
  type: "error",
  request_id: "s",
  code: "invalid_request",
  message,
  fatal: false,
});

describe("configuration errors at session.start (§6.2, §7)", () => {
  it("refuses a user file readable by group or others", async () => {
    const file = await harness.sandbox.writeUserConfig(fakeProfileToml({ baseUrl: harness.provider.url }), 0o644);
    expect(await startError({})).toEqual(
      failure(`user configuration is readable by group or others; run chmod 600 ${file}`),
    );
  });

  it("refuses an explicit file readable by group or others (flag and SCV_CONFIG)", async () => {
    const explicit = await harness.sandbox.writeExplicitConfig(
      fakeProfileToml({ baseUrl: harness.provider.url }),
      0o640,
    );
    const expected = failure(`explicit configuration is readable by group or others; run chmod 600 ${explicit}`);
    expect(await startError({ args: ["--stdio", "--config-path", explicit] })).toEqual(expected);
    expect(await startError({ env: { OPENAI_API_KEY: "test-only", SCV_CONFIG: explicit } })).toEqual(expected);
  });

  it("names an unknown key and its file", async () => {
    const file = await harness.sandbox.writeUserConfig('[tools]\napproval_polcy = "always"\n');
    expect(await startError({})).toEqual(
      failure(`parse configuration ${file}: unknown key tools.approval_polcy; did you mean approval_policy?`),
    );
  });

  it("refuses a project [provider] table", async () => {
    const file = await harness.sandbox.writeProjectConfig('[provider]\nmodel = "x"\n');
    const error = await startError({});
    expect(error).toEqual(failure(error.message));
    expect(error.message.startsWith(`project configuration ${file} cannot set [provider]: `), error.message).toBe(true);
  });

  it("reports a missing profile, from the flag and from session.start", async () => {
    await harness.sandbox.writeUserConfig(fakeProfileToml({ baseUrl: harness.provider.url }));
    expect(await startError({ args: ["--stdio", "--provider", "ghost"] })).toEqual(
      failure('active provider profile "ghost" was not found'),
    );
    expect(await startError({ fields: { provider: "phantom" } })).toEqual(
      failure('active provider profile "phantom" was not found'),
    );
  });

  it("reports a missing credential", async () => {
    expect(await startError({ env: {} })).toEqual(
      failure(
        `provider credential is not configured; set provider.api_key or provider.api_key_env (set OPENAI_API_KEY, or configure a provider in ${
          path.join(harness.sandbox.home, "config.toml")
        }; see docs/configuration.md)`,
      ),
    );
  });

  it("lets the client retry after a failed session.start", async () => {
    const client = harness.server({ env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }) });
    await client.initialize();
    client.send({ type: "session.start", request_id: "bad", cwd: path.join(harness.sandbox.workspace, "nope") });
    expect(await client.next()).toMatchObject({ request_id: "bad", code: "invalid_request" });
    client.send({
      type: "session.start",
      request_id: "good",
      cwd: harness.sandbox.workspace,
      model: "from-message",
      base_url: harness.provider.url,
    });
    const started = await client.next();
    expect(started).toMatchObject({ type: "session.started", request_id: "good", model: "from-message" });
    expect(await client.next()).toMatchObject({ type: "queue.snapshot", seq: 1 });
    await client.finish();
  });

  it("lets session.start fields override the CLI flags and reports the effective limits", async () => {
    await harness.sandbox.writeUserConfig(
      `${
        fakeProfileToml({ baseUrl: "http://127.0.0.1:9/v1" })
      }\n[context]\nmax_tokens = 64000\n\n[tui]\nmax_transcript_items = 500\n\n[protocol]\nmax_server_frame_bytes = 16777216\n`,
    );
    const client = harness.server({
      args: ["--stdio", "--model", "flag-model", "--base-url", "http://127.0.0.1:9/v1"],
      env: harness.sandbox.env(),
    });
    const started = await client.start({
      cwd: harness.sandbox.workspace,
      model: "message-model",
      base_url: harness.provider.url,
    });
    expect(started).toMatchObject({
      model: "message-model",
      context_max_tokens: 64000,
      max_server_frame_bytes: 16777216,
      max_transcript_items: 500,
    });
    client.turn("hi");
    expect(await client.next(["turn.completed", "turn.failed"])).toMatchObject({ type: "turn.completed" });
    expect(harness.provider.requests[0]!.body.model).toBe("message-model");
    await client.finish();
  });

  it("builds the system prompt from agent.system_prompt, the workspace and AGENTS.md", async () => {
    const agents = path.join(harness.sandbox.workspace, "AGENTS.md");
    await writeFile(agents, "Use tabs.\nRun npm test.");
    await harness.sandbox.writeUserConfig('project_doc_max_bytes = 9\n\n[agent]\nsystem_prompt = "Be brief."\n');
    expect(await instructionsOfOneTurn()).toBe(
      `Be brief.\nCurrent working directory: ${harness.sandbox.workspace}\n\n# Project instructions\n` +
        "These come from AGENTS.md files, the most general first; where two disagree, the later (more specific) one " +
        `wins.\n\n## ${agents}\nUse tabs.\n[${agents} cut by project_doc_max_bytes = 9: 9 of 23 bytes kept]\n`,
    );
  });

  it("ignores an AGENTS.md that links outside the workspace", async () => {
    const outside = path.join(harness.sandbox.root, "outside.md");
    await writeFile(outside, "secret instructions");
    await symlink(outside, path.join(harness.sandbox.workspace, "AGENTS.md"));
    expect(await instructionsOfOneTurn()).toBe(
      `You are SCV, a concise and careful coding agent. Use tools to inspect, change, and verify the workspace.\nCurrent working directory: ${harness.sandbox.workspace}\n`,
    );
  });

  it("applies the session's client frame limit after session.start", async () => {
    await harness.sandbox.writeUserConfig("[protocol]\nmax_client_frame_bytes = 4096\n");
    const client = harness.server({
      args: ["--stdio", "--base-url", harness.provider.url],
      env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }),
    });
    await client.initialize();
    client.send({ type: "daemon.control", request_id: "big-before", command: { pad: "x".repeat(5000) } });
    expect(await client.next()).toMatchObject({ request_id: "big-before", code: "unsupported" });
    client.send({ type: "session.start", request_id: "s", cwd: harness.sandbox.workspace, no_tools: true });
    await client.next("queue.snapshot");
    client.send({ type: "daemon.control", request_id: "big-after", command: { pad: "x".repeat(5000) } });
    expect(await client.next()).toEqual({
      type: "error",
      code: "invalid_request",
      message: "client frame exceeds configured limit",
      fatal: false,
    });
    client.send({ type: "daemon.control", request_id: "small", command: {} });
    expect(await client.next()).toMatchObject({ request_id: "small", code: "unsupported" });
    await client.finish();
  });

  it("lists project skills in a tool session's system prompt and serves them with read_skill", async () => {
    const skillDir = path.join(harness.sandbox.workspace, ".scv", "skills", "release");
    await mkdir(skillDir, { recursive: true });
    await writeFile(path.join(skillDir, "SKILL.md"), "---\ndescription: Cut a release\n---\n# Release\nTag it.\n");
    await harness.startProvider([
      toolCallResponse([{ call_id: "s1", name: "read_skill", arguments: { name: "release" } }]),
      textResponse(["done"]),
      textResponse(["tool-free"]),
    ]);
    const client = harness.server({
      args: ["--stdio", "--base-url", harness.provider.url],
      env: harness.sandbox.env({ OPENAI_API_KEY: "test-only" }),
    });
    await client.start({ cwd: harness.sandbox.workspace });
    client.turn("release it");
    const completed = await client.next("tool.completed");
    expect(completed).toMatchObject({ name: "read_skill", success: true });
    expect(completed.output).toContain("Tag it.");
    await client.next(["turn.completed", "turn.failed"]);
    await client.finish();
    expect(client.events.some((event) => event.type === "approval.requested")).toBe(false);
    expect(harness.provider.requests[0]!.body.instructions.endsWith(
      "\n# Available skills\n- release: Cut a release\n\nUse read_skill with a skill name when its workflow applies.\n",
    )).toBe(true);
  });
});
