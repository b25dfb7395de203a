// The runnable examples of docs/protocol.md and docs/host-protocol.md, pasted as a user would and
// run against the real CLI: each must print exactly what its page shows (ids and durations aside).
import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { HANG_MS, waitFor } from "../support/wait.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const DOC = readFileSync(join(ROOT, "docs/protocol.md"), "utf8");
const HOST_DOC = readFileSync(join(ROOT, "docs/host-protocol.md"), "utf8");
const SCV = `${process.execPath} ${join(ROOT, "main.ts")}`;

/** The fenced block that follows `marker` in the page. */
function block(marker: string, doc = DOC): string {
  const start = doc.indexOf(marker);
  if (start === -1) throw new Error(`the page has no ${marker}`);
  const match = /```[a-z]*\n([\s\S]*?)```/.exec(doc.slice(start + marker.length));
  if (match === null) throw new Error(`no code block after ${marker}`);
  return match[1]!;
}

/** UUIDs → S, T1, A1, Q1 … in order of appearance, as the page prints them; the workspace → /home/me/project. */
function normalise(output: string, workspace: string): string {
  const names = new Map<string, string>();
  const counts: Record<string, number> = {};
  const prefixes: Array<[string, string]> = [["session_id", "S"], ["turn_id", "T"], ["approval_id", "A"], [
    "queue_id",
    "Q",
  ]];
  for (const [field, prefix] of prefixes) {
    for (const match of output.matchAll(new RegExp(`"${field}":"([0-9a-f-]{36})"`, "g"))) {
      if (names.has(match[1]!)) continue;
      counts[prefix] = (counts[prefix] ?? 0) + 1;
      names.set(match[1]!, prefix === "S" ? "S" : `${prefix}${counts[prefix]}`);
    }
  }
  let result = output.replaceAll(workspace, "/home/me/project");
  for (const [uuid, name] of names) result = result.replaceAll(uuid, name);
  return result;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

const children: ChildProcess[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("docs/protocol.md examples", () => {
  it("the walkthrough prints the events the page shows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "scv-docs-"));
    dirs.push(dir);
    const port = String(await freePort());
    writeFileSync(join(dir, "provider.mjs"), block("`provider.mjs`:").replaceAll("8787", port));
    // The page's 10 s wait per event suits a user; a loaded test machine gets the suite's hang deadline instead.
    const script = block("`session.sh`:").replaceAll("8787", port);
    expect(script).toContain("read -r -t 10 ");
    writeFileSync(
      join(dir, "session.sh"),
      script.replace("read -r -t 10 ", `read -r -t ${Math.ceil(HANG_MS / 1000)} `),
    );
    const provider = spawn(process.execPath, [join(dir, "provider.mjs")], { stdio: ["ignore", "ignore", "inherit"] });
    children.push(provider);
    await waitFor(() => spawnSync("bash", ["-c", `exec 3<>/dev/tcp/127.0.0.1/${port}`]).status === 0, {
      intervalMs: 20,
      what: "the example provider to listen",
    });
    const env: Record<string, string | undefined> = { ...process.env, SCV: SCV };
    for (
      const key of [
        "SCV_CONFIG",
        "SCV_MODEL",
        "SCV_PROVIDER",
        "SCV_BASE_URL",
        "SCV_API_KEY_ENV",
        "HTTP_PROXY",
        "http_proxy",
      ]
    ) {
      delete env[key];
    }
    const run = spawnSync("bash", [join(dir, "session.sh")], { cwd: dir, env, encoding: "utf8", timeout: HANG_MS });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
    expect(normalise(run.stdout, dir)).toBe(block("What the server writes"));
  });

  it("the framing example answers each bad line and goes on", () => {
    const command = block("Try them (each line gets its own answer, and the server goes on):").replace(
      /\bscv server\b/,
      `${SCV} server`,
    );
    const run = spawnSync("bash", ["-c", command], {
      encoding: "utf8",
      timeout: HANG_MS,
      env: { ...process.env, OPENAI_API_KEY: "x" },
    });
    expect(run.status).toBe(0);
    const shown = DOC.slice(DOC.indexOf("Try them (each line gets its own answer"));
    expect(run.stdout).toBe(/```json\n([\s\S]*?)```/.exec(shown)![1]);
  });

  it("the host walkthrough prints the frames the page shows", () => {
    const dir = mkdtempSync(join(tmpdir(), "scv-docs-"));
    dirs.push(dir);
    writeFileSync(join(dir, "host_client.mjs"), block("Save it as `host_client.mjs`", HOST_DOC));
    const run = spawnSync(process.execPath, [join(dir, "host_client.mjs")], {
      cwd: dir,
      env: { ...process.env, SCV },
      encoding: "utf8",
      timeout: HANG_MS,
    });
    expect(run.status).toBe(0);
    const durations = (text: string) =>
      text.replace(/"code_mode_host_duration_ns":\d+/g, '"code_mode_host_duration_ns":N');
    expect(durations(run.stdout)).toBe(
      durations(block("Its output (`->` client to host, `<-` host to client):", HOST_DOC)),
    );
  });
});
