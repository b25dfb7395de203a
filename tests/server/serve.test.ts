// serveStdio over in-memory streams: the same connection code the CLI runs, embeddable (e.g. by chat).
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { serveStdio, silentLogger } from "../../lib/server/index.ts";

function run(lines: string[]) {
  const input = new PassThrough();
  const output = new PassThrough();
  const received: string[] = [];
  output.setEncoding("utf8");
  output.on("data", (chunk: string) => received.push(chunk));
  const result = serveStdio(input, output, { env: {}, cwd: process.cwd() }, silentLogger);
  for (const line of lines) input.write(`${line}\n`);
  input.end();
  return result.then((value) => ({
    ...value,
    events: received.join("").split("\n").filter(Boolean).map((line) => JSON.parse(line)),
  }));
}

const init = (version: number) =>
  JSON.stringify({
    type: "initialize",
    request_id: "1",
    protocol_version: version,
    client: { name: "t", version: "0" },
  });

describe("serveStdio", () => {
  it("answers the handshake and ends with exit code 0 at EOF", async () => {
    const result = await run([init(3), JSON.stringify({ type: "daemon.control", request_id: "2", command: {} })]);
    expect(result).toMatchObject({ exitCode: 0, reason: "eof" });
    expect(result.events.map((event) => event.type)).toEqual(["initialized", "error"]);
  });

  it("stops at a version mismatch with exit code 1", async () => {
    const result = await run([init(4), init(3)]);
    expect(result).toMatchObject({ exitCode: 1, reason: "version_mismatch" });
    expect(result.events).toEqual([
      { type: "error", request_id: "1", code: "version_mismatch", message: "server supports protocol 3", fatal: true },
    ]);
  });
});
