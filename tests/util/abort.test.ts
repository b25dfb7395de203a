import { describe, expect, it } from "vitest";
import { raceAbort } from "../../lib/util/abort.ts";

describe("raceAbort", () => {
  it("settles like the promise when the signal stays quiet, and removes its listener", async () => {
    const controller = new AbortController();
    let listeners = 0;
    const signal = controller.signal;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => (listeners++, add(...args))) as typeof add;
    signal.removeEventListener =
      ((...args: Parameters<typeof remove>) => (listeners--, remove(...args))) as typeof remove;
    expect(await raceAbort(Promise.resolve(7), signal, () => "aborted")).toBe(7);
    await expect(raceAbort(Promise.reject(new Error("boom")), signal, () => "aborted")).rejects.toThrow("boom");
    expect(listeners).toBe(0);
  });

  it("settles with onAbort's value, or its error, once the signal aborts", async () => {
    const controller = new AbortController();
    const never = new Promise<number>(() => {});
    const value = raceAbort(never, controller.signal, () => "aborted");
    const thrown = raceAbort(never, controller.signal, (): never => {
      throw new Error("cancelled");
    });
    controller.abort();
    expect(await value).toBe("aborted");
    await expect(thrown).rejects.toThrow("cancelled");
  });

  it("answers at once for a signal that already aborted", async () => {
    expect(await raceAbort(new Promise(() => {}), AbortSignal.abort(), () => 1)).toBe(1);
  });
});
