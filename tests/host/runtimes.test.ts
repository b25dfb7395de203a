// The host's last frames reach the client before it exits, on Node and on Deno (issue 16,
// item 3: Deno ran the exit before the stream was uncorked and sent nothing, exit 0).
import { resolve } from "node:path";
import { afterAll, describe, expect, test } from "vitest";
import { encodeFrame } from "../../lib/codec/index.ts";
import {
  hello,
  type HostProcess,
  killAllHosts,
  MAIN,
  open,
  ROOT,
  startFramedProcess,
} from "../support/frame_client.ts";

afterAll(killAllHosts);

const DENO = resolve(ROOT, "node_modules/.bin/deno");

const runtimes: [string, () => HostProcess][] = [
  ["node", () => startFramedProcess(process.execPath, [MAIN, "host"])],
  ["deno", () => startFramedProcess(DENO, ["run", "-A", MAIN, "host"], { DENO_NO_UPDATE_CHECK: "1", NO_COLOR: "1" })],
];

describe.concurrent.each(runtimes)("under %s", (_name, start) => {
  test("a rejected hello ([2]) sends connection/rejected, then exits 0", async () => {
    const host = start();
    host.send(hello([], [], [2]));
    const exit = await host.exit;
    expect(exit.code).toBe(0);
    expect(host.frames.received).toEqual([
      { type: "connection/rejected", reason: { type: "noCompatibleVersion", supportedVersions: [1] } },
    ]);
  });

  test("a missing required capability and a request first are rejected with their frame", async () => {
    const missing = start();
    missing.send(hello([], ["b-req", "a-req"]));
    const invalid = start();
    invalid.send(open(1, "s1"));
    expect((await missing.exit).code).toBe(0);
    expect((await invalid.exit).code).toBe(0);
    expect(missing.frames.received).toEqual([
      { type: "connection/rejected", reason: { type: "missingRequiredCapability", capability: "a-req" } },
    ]);
    expect(invalid.frames.received).toEqual([
      {
        type: "connection/rejected",
        reason: { type: "invalidHello", message: "first message must be connection/hello" },
      },
    ]);
  });

  test("frames answered before a fatal error in the same write still arrive", async () => {
    const host = start();
    host.sendRaw(Buffer.concat([encodeFrame(hello()), encodeFrame(open(1, "s1")), Buffer.from([1, 0, 0, 0, 0x7b])]));
    const exit = await host.exit;
    expect(exit.code).toBe(1);
    expect(host.stderr()).toContain(
      "Error: failed to read code-mode client message: failed to decode code-mode IPC frame: ",
    );
    expect(host.frames.received.map((frame) => frame.type)).toEqual(["connection/ready", "operation/response"]);
  });
});
