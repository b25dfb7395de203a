// A connection's delegate calls (host spec §8): nested tool calls and notifications sent to
// the client as `delegate/request`, their ids, the pending cap, cancellation and answers.
import { encodeFrame } from "../codec/index.ts";
import type { NestedToolCall } from "../sandbox/index.ts";
import { type DelegateResult, wireId } from "./protocol.ts";

const CONNECTION_CLOSED = "code-mode client connection closed";

export interface DelegateIo {
  /** False once the connection is closing: nothing more is dispatched. */
  isOpen(): boolean;
  /** Queues an already encoded frame. */
  push(frame: Buffer): void;
  /** Encodes and queues a message. */
  send(message: unknown): void;
  log(line: string): void;
}

interface PendingDelegate {
  kind: "tool" | "notify";
  resolve(value: unknown): void;
  reject(reason: string): void;
}

export class Delegates {
  /** The pending cap: 1,024, or 4,096 once `delegate-capacity-4096` was granted. */
  max: number;
  readonly #io: DelegateIo;
  readonly #pending = new Map<bigint, PendingDelegate>();
  #nextId = 1n;

  constructor(max: number, io: DelegateIo) {
    this.max = max;
    this.#io = io;
  }

  /** A nested tool call; rejections are the plain strings the cell sees. */
  callTool(sessionId: string, call: NestedToolCall, signal: AbortSignal): Promise<unknown> {
    if (signal.aborted) return Promise.reject("code-mode delegate request was cancelled before dispatch");
    if (!this.#io.isOpen()) return Promise.reject(CONNECTION_CLOSED);
    if (this.#pending.size >= this.max) return Promise.reject("code-mode host has too many pending delegate calls");
    const id = this.#nextId++;
    let frame: Buffer;
    try {
      frame = encodeFrame({
        type: "delegate/request",
        id: wireId(id),
        sessionId,
        request: {
          type: "tool/invoke",
          invocation: {
            cell_id: call.cellId,
            runtime_tool_call_id: call.runtimeToolCallId,
            tool_name: { name: call.tool.tool_name.name, namespace: call.tool.tool_name.namespace ?? null },
            tool_kind: call.tool.kind,
            input: call.input === undefined ? null : call.input,
          },
        },
      });
    } catch (error) {
      // An oversized request is not sent; the cell sees the frame error.
      return Promise.reject(error instanceof Error ? error.message : String(error));
    }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        if (this.#pending.get(id) !== pending) return;
        this.#pending.delete(id);
        this.#io.send({ type: "delegate/cancel", id: wireId(id) });
        reject("code mode delegate request cancelled");
      };
      const pending: PendingDelegate = {
        kind: "tool",
        resolve: (value) => {
          signal.removeEventListener("abort", onAbort);
          resolve(value);
        },
        reject: (reason) => {
          signal.removeEventListener("abort", onAbort);
          reject(reason);
        },
      };
      this.#pending.set(id, pending);
      signal.addEventListener("abort", onAbort, { once: true });
      this.#io.push(frame);
    });
  }

  /** A `notify()`: resolves once answered; failures are only logged. Counts toward the cap. */
  notify(sessionId: string, callId: string, cellId: string, text: string): Promise<void> {
    if (!this.#io.isOpen()) return Promise.resolve();
    if (this.#pending.size >= this.max) {
      this.#io.log("failed to deliver code mode notification: code-mode host has too many pending delegate calls");
      return Promise.resolve();
    }
    const id = this.#nextId++;
    return new Promise((resolve) => {
      this.#pending.set(id, {
        kind: "notify",
        resolve: () => resolve(),
        reject: (reason) => {
          this.#io.log(`failed to deliver code mode notification: ${reason}`);
          resolve();
        },
      });
      this.#io.send({
        type: "delegate/request",
        id: wireId(id),
        sessionId,
        request: { type: "notification/send", callId, cellId, text },
      });
    });
  }

  /** A `delegate/response`; unknown or already answered ids are ignored. */
  answer(id: bigint, result: DelegateResult): void {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    if (result.status === "error") {
      pending.reject(result.message);
    } else if (pending.kind === "tool") {
      if (result.value.type === "tool/result") pending.resolve(result.value.result);
      else pending.reject("code-mode client returned an invalid tool result");
    } else if (result.value.type === "notification/delivered") {
      pending.resolve(undefined);
    } else {
      pending.reject("code-mode client returned an invalid notification result");
    }
  }

  /** The connection closed: tool calls reject, notifications count as done. */
  closeAll(): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const delegate of pending) {
      if (delegate.kind === "tool") delegate.reject(CONNECTION_CLOSED);
      else delegate.resolve(undefined);
    }
  }
}
