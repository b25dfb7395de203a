// The shared-memory slot that carries tool answers and calls between the main thread and a
// polling worker (lib/sandbox/mailbox.ts): what it refuses, what it carries, and that under
// real concurrency every message arrives exactly once, in order, with nobody stuck.
import { MessageChannel, Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";
import { mailboxSlot } from "../../lib/sandbox/mailbox.ts";

const SLOT_BYTES = 4096;

function slot() {
  return mailboxSlot(new SharedArrayBuffer(SLOT_BYTES), 0, SLOT_BYTES);
}

describe("a mailbox slot", () => {
  it("refuses a message while nobody polls, and after the reader closed it", () => {
    const box = slot();
    expect(box.offer(1, 2, 3, "x", 0)).toBe(false);
    box.open();
    expect(box.close()).toBe(false);
    expect(box.offer(1, 2, 3, "x", 0)).toBe(false);
  });

  it("carries three numbers and a text, multi-byte or absent, once", () => {
    const box = slot();
    for (const text of ["{\"a\":[1,2]}", "ünïcødé 𝄞 🎉", "", undefined]) {
      box.open();
      expect(box.offer(7, -2_147_483_647, 2_147_483_647, text, 0)).toBe(true);
      expect(box.ready()).toBe(true);
      expect(box.take()).toEqual([7, -2_147_483_647, 2_147_483_647, text]);
      expect(box.ready()).toBe(false);
      // Taken: the slot is free, and refuses until the reader polls again.
      expect(box.offer(1, 1, 1, "again", 0)).toBe(false);
    }
  });

  it("refuses what it cannot carry exactly: too long, lone surrogates, numbers outside int32", () => {
    const box = slot();
    box.open();
    expect(box.offer(1, 1, 1, "x".repeat(SLOT_BYTES), 0)).toBe(false);
    // Fits in UTF-16 units but not in UTF-8 bytes.
    expect(box.offer(1, 1, 1, "€".repeat(SLOT_BYTES / 2), 0)).toBe(false);
    expect(box.offer(1, 1, 1, "a\ud800b", 0)).toBe(false);
    expect(box.offer(2 ** 31, 1, 1, "x", 0)).toBe(false);
    expect(box.offer(1, 1.5, 1, "x", 0)).toBe(false);
    // Every refusal left the slot open for the next offer.
    expect(box.offer(1, 1, 1, "x".repeat(SLOT_BYTES / 2), 0)).toBe(true);
    expect(box.take()[3]).toHaveLength(SLOT_BYTES / 2);
  });

  it("refuses until the reader has taken every message the writer posted before", () => {
    const box = slot();
    box.open();
    expect(box.offer(1, 1, 1, "x", 2)).toBe(false);
    box.countReceived();
    expect(box.offer(1, 1, 1, "x", 2)).toBe(false);
    box.countReceived();
    expect(box.offer(1, 1, 1, "x", 2)).toBe(true);
  });

  it("polls: a slot message delivered before a port message posted after it", () => {
    const box = slot();
    const order: unknown[] = [];
    // The writer publishes in the slot, then posts the next message, just before the reader's
    // look at its port: the port message is newer and must come second.
    const receive = (): { message: unknown } | undefined => {
      if (order.length > 0 || !box.offer(1, 0, 0, "older", 0)) return undefined;
      return { message: "newer" };
    };
    const arrived = box.poll(1_000, receive, (message) => order.push(message[3]), (message) => order.push(message));
    expect(arrived).toBe(true);
    expect(order).toEqual(["older", "newer"]);
    // The port message was counted: the writer may use the slot again once it is open.
    box.open();
    expect(box.offer(2, 0, 0, "next", 1)).toBe(true);
  });

  it("polls until time is up, then reports nothing arrived", () => {
    const box = slot();
    const started = performance.now();
    expect(box.poll(5, () => undefined, () => expect.fail("no slot message"), () => expect.fail("no port message"))).toBe(false);
    expect(performance.now() - started).toBeGreaterThanOrEqual(5);
    // Closed again: a writer finds nobody polling.
    expect(box.offer(1, 1, 1, "x", 0)).toBe(false);
  });

  it("does not wait forever for a writer that died between its claim and its publish", () => {
    const buffer = new SharedArrayBuffer(SLOT_BYTES);
    const box = mailboxSlot(buffer, 0, SLOT_BYTES);
    box.open();
    // What a writer thread killed mid-write (out of memory, out of stack) leaves: the slot claimed.
    const WRITING = 2;
    Atomics.store(new Int32Array(buffer, 0, 1), 0, WRITING);
    const started = performance.now();
    expect(box.close()).toBe(false);
    expect(performance.now() - started).toBeLessThan(1_000);
    // The slot works again.
    box.open();
    expect(box.offer(5, 6, 7, "after", 0)).toBe(true);
    expect(box.take()).toEqual([5, 6, 7, "after"]);
  });

  it("between two threads, delivers every message once and in order, by slot or by port", async () => {
    const buffer = new SharedArrayBuffer(SLOT_BYTES);
    const { port1, port2 } = new MessageChannel();
    const count = 20_000;
    // The writer sends numbered messages: by the slot when the reader polls, else by the port.
    // Now and then it claims a stale post count, so that it retreats after its claim while the
    // reader may be closing (a close() that waited for a publish hung there). Every hundredth
    // message waits for the slot, so that both paths are taken even when the threads rarely
    // run at the same time.
    const writer = new Worker(
      `const { workerData } = require("node:worker_threads");
       const box = (${String(mailboxSlot)})(workerData.buffer, 0, ${SLOT_BYTES});
       let posted = 0;
       for (let i = 0; i < ${count}; i++) {
         if (i % 100 === 50) {
           while (!box.offer(i, 0, 0, "m" + i, posted)) {}
           continue;
         }
         const stale = i % 7 === 0 ? posted + 1 : posted;
         if (!box.offer(i, 0, 0, "m" + i, stale)) {
           posted = (posted + 1) | 0;
           workerData.port.postMessage(i);
         }
       }`,
      { eval: true, workerData: { buffer, port: port2 }, transferList: [port2] },
    );
    // The reader alternates, as the sandbox's threads do: short polls (`poll`, the code under test),
    // and between them what its port holds, counted as the port's message events are.
    const reader = new Worker(
      `const { workerData, receiveMessageOnPort, parentPort } = require("node:worker_threads");
       const box = (${String(mailboxSlot)})(workerData.buffer, 0, ${SLOT_BYTES});
       const seen = [];
       let bySlot = 0;
       const receive = () => receiveMessageOnPort(workerData.port);
       const fromSlot = ([i, , , text]) => {
         if (text !== "m" + i) throw new Error("slot text " + text + " for message " + i);
         seen.push(i);
         bySlot++;
       };
       const fromPort = (message) => seen.push(message);
       while (seen.length < ${count}) {
         box.poll(0.02, receive, fromSlot, fromPort);
         for (let received = receive(); received !== undefined; received = receive()) {
           box.countReceived();
           seen.push(received.message);
         }
       }
       parentPort.postMessage({ seen, bySlot });`,
      { eval: true, workerData: { buffer, port: port1 }, transferList: [port1] },
    );
    try {
      const result = await new Promise<{ seen: number[]; bySlot: number }>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error("a thread is stuck in the mailbox")), 20_000);
        reader.once("message", (message) => {
          clearTimeout(timer);
          resolve(message);
        });
        reader.once("error", reject);
        writer.once("error", reject);
      });
      expect(result.seen).toEqual(Array.from({ length: count }, (_, i) => i));
      // Both paths were taken (otherwise this test would not show their order).
      expect(result.bySlot).toBeGreaterThanOrEqual(count / 100);
      expect(result.bySlot).toBeLessThan(count);
    } finally {
      await Promise.all([writer.terminate(), reader.terminate()]);
    }
  });
});
