// `scv config`: every effective value with the layer it came from, secrets hidden; `scv config path`.
import { spawnSync } from "node:child_process";
import { afterEach, beforeEach, expect, it } from "vitest";
import { type ConfigSandbox, createConfigSandbox, fakeProfileToml } from "../support/config_files.ts";
import { cliCommand, cliEnv } from "../support/cli_command.ts";
import { HANG_MS } from "../support/wait.ts";

let sandbox: ConfigSandbox;
beforeEach(async () => {
  sandbox = await createConfigSandbox();
});
afterEach(async () => {
  await sandbox.cleanup();
});

function scv(args: string[], env: Record<string, string | undefined> = {}) {
  const { command, args: argv } = cliCommand(args);
  return spawnSync(command, argv, {
    cwd: sandbox.workspace,
    env: cliEnv(sandbox.env(env)),
    encoding: "utf8",
    timeout: HANG_MS,
  });
}

type Row = { key: string; value: string; origin: string };
const rows = (stdout: string) => new Map((JSON.parse(stdout) as Row[]).map((row) => [row.key, row]));

it("names the layer of each value: default, user, project, explicit, env, flag", async () => {
  const user = await sandbox.writeUserConfig(
    `${
      fakeProfileToml({ name: "local", baseUrl: "http://127.0.0.1:9/v1", apiKey: "sk-very-secret-1234" })
    }\n[tools]\napproval_policy = "always"\n`,
  );
  const project = await sandbox.writeProjectConfig("[context]\nmax_tokens = 32000\n");
  const explicit = await sandbox.writeExplicitConfig("[agent]\nmax_steps = 7\n");
  const result = scv(["config", "--json", "--config-path", explicit], { SCV_MODEL: "env-model" });
  expect(result.stderr).toBe("");
  expect(result.status).toBe(0);
  const table = rows(result.stdout);
  expect(table.get("provider.model")).toEqual({ key: "provider.model", value: '"env-model"', origin: "env SCV_MODEL" });
  expect(table.get("provider.base_url")?.origin).toBe(`user file ${user}`);
  expect(table.get("tools.approval_policy")).toMatchObject({ value: '"always"', origin: `user file ${user}` });
  expect(table.get("context.max_tokens")).toMatchObject({ value: "32000", origin: `project file ${project}` });
  expect(table.get("agent.max_steps")).toMatchObject({ value: "7", origin: `explicit file ${explicit}` });
  expect(table.get("web.enabled")).toMatchObject({ value: "true", origin: "default" });
  expect(table.get("provider.api_key")).toMatchObject({ value: "[set]" });
  expect(result.stdout).not.toContain("sk-very-secret");

  const text = scv(["config"], {});
  expect(text.status).toBe(0);
  expect(text.stdout).toContain("(profile local)");
  expect(text.stdout).toMatch(/^provider\.api_key = \[set\] {2}# user file /m);
  expect(text.stdout).not.toContain("sk-very-secret");
});

it("`config path` lists the files read, lowest layer first; a bad file is an error naming it", async () => {
  const user = await sandbox.writeUserConfig("[agent]\nmax_steps = 3\n");
  const project = await sandbox.writeProjectConfig("[context]\nmax_tokens = 32000\n");
  const result = scv(["config", "path"]);
  expect(result.status).toBe(0);
  expect(result.stdout).toBe(`${user}\n${project}\n`);

  await sandbox.writeUserConfig("[agent]\nmax_stepz = 3\n");
  const broken = scv(["config"]);
  expect(broken.status).toBe(1);
  expect(broken.stderr).toBe(
    `scv config: parse configuration ${user}: unknown key agent.max_stepz; did you mean max_steps?\n`,
  );
  expect(scv(["config", "nonsense"]).status).toBe(2);
});

it("prints the selected profile's name as one value and names the file an MCP server came from (issue 27)", async () => {
  const user = await sandbox.writeUserConfig(
    `${fakeProfileToml({ name: "f", baseUrl: "http://127.0.0.1:9/v1" })}\n` +
      '[mcp_servers.fs]\ncommand = "mcp-server-filesystem"\nenv = { TOKEN = "tok-very-secret" }\n',
  );
  const result = scv(["config"], { SCV_PROVIDER: "f" });
  expect(result.status).toBe(0);
  expect(result.stdout).not.toMatch(/^provider_name\.\d/m);
  expect(result.stdout).toMatch(/^provider_name = "f" {2}# /m);
  expect(result.stdout).not.toContain("context_max_tokens_default");
  expect(result.stdout).toMatch(
    new RegExp(`^mcp_servers\\.fs = \\{.*"command":"mcp-server-filesystem".*\\} {2}# user file ${user}$`, "m"),
  );
  // Its environment's values are secrets: the names only.
  expect(result.stdout).toContain('"env":{"TOKEN":"[set]"}');
  expect(result.stdout).not.toContain("tok-very-secret");
});
