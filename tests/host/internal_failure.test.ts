// A failure inside the host while it handles a well-formed frame is an internal task failure
// (host spec §11: `code-mode request task failed: …`), not a read error. The sandbox here is a
// stand-in whose operations fail on purpose, so that the failure is certain.
import { expect, test } from "vitest";
import { decodeFrameMessage } from "../../lib/codec/index.ts";
import { HostConnection } from "../../lib/host/connection.ts";
import { limitsFromEnv } from "../../lib/host/limits.ts";
import type { Observation, Sandbox, SandboxCell, SandboxSession } from "../../lib/sandbox/types.ts";
import { execute, hello, open } from "../support/frame_client.ts";

/** A session whose cells never finish and whose `yieldNow` throws. */
function brokenSandbox(): Sandbox {
  const session: SandboxSession = {
    startCell(): SandboxCell {
      return {
        id: "1",
        initial: new Promise<Observation>(() => undefined),
        closed: new Promise<void>(() => undefined),
      };
    },
    wait: () => new Promise(() => undefined),
    terminate: () => new Promise(() => undefined),
    yieldNow() {
      throw new Error("observer table corrupted");
    },
    close: async () => undefined,
  };
  return { openSession: () => session, shutdown: async () => undefined };
}

test("a failure while handling operation/yield ends the connection as a request task failure", async () => {
  let started!: () => void;
  const executionStarted = new Promise<void>((resolve) => (started = resolve));
  const connection = new HostConnection({
    sink: {
      write: (frame) => {
        const message = decodeFrameMessage(frame) as { result?: { value?: { type?: string } } };
        if (message.result?.value?.type === "execution/started") started();
      },
    },
    sandbox: brokenSandbox(),
    limits: limitsFromEnv({}),
    log: () => undefined,
  });
  connection.receive(hello());
  connection.receive(open(1, "s"));
  connection.receive(execute(2, "s", "text(1)"));
  await executionStarted;
  connection.receive({ type: "operation/yield", id: 2 });
  expect(await connection.done).toEqual({ error: "code-mode request task failed: observer table corrupted" });
  expect(connection.finished).toBe(true);
});
