// One-slot mailboxes in shared memory between the main thread and a sandbox worker, used only
// while the receiving thread polls for a message it expects (a tool answer, the next tool call).
//
// Why not postMessage there: while a thread polls its port, a postMessage to it took 10–16 µs
// and arrived 15–30 µs later (measured with a shared clock; both threads contend for the port's
// lock), a quarter of a whole delegate round trip. A store into shared memory is seen at once.
// A message that does not fit, or finds nobody polling, goes by postMessage as usual.
//
// Order: the writer uses the slot only once the reader has counted every message the writer
// posted before, so a slot message never overtakes an earlier posted one. A reader that takes a
// message from its port while polling closes the slot before counting it: a message found in
// the slot then is older and is handled first.
//
// `mailboxSlot` is also embedded in the worker's code (`String(mailboxSlot)`): it must stay
// self-contained, with no references to anything outside its body.

/** What a slot carries: three int32 numbers and an optional string. */
export type SlotMessage = [number, number, number, string | undefined];

/** A slot carries three int32 numbers and an optional string. */
export interface MailboxSlot {
  /**
   * Reader: polls for up to `ms`, the slot at every look and `receive` (its port) at every 16th
   * (each look at a port takes its lock, which the writer's postMessage needs too). What arrives
   * goes to `fromSlot` or `fromPort`, in the order it was sent; true if it arrived in time. A
   * writer caught mid-write when time is up is waited for (its message is delivered, false
   * returned). Messages the reader takes from its port outside `poll` must be counted.
   */
  poll(
    ms: number,
    receive: () => { message: unknown } | undefined,
    fromSlot: (message: SlotMessage) => void,
    fromPort: (message: unknown) => void,
  ): boolean;
  /** Reader: counts one message taken from its port outside `poll` (see `offer`). */
  countReceived(): void;
  /**
   * Writer: delivers if the reader polls, has received all `posted` messages the writer sent by
   * postMessage (an int32 count) and the message fits; false: send it by postMessage.
   */
  offer(a: number, b: number, c: number, text: string | undefined, posted: number): boolean;
  // The steps of `poll`, for tests.
  /** Reader: starts polling (writers may now deliver). */
  open(): void;
  /** Reader: whether a message waits. */
  ready(): boolean;
  /** Reader: takes the waiting message and frees the slot. */
  take(): SlotMessage;
  /**
   * Reader: stops polling. True when a writer had already claimed the slot: its message is then
   * waited for and must be taken.
   */
  close(): boolean;
}

/** The shared memory of one worker: the slot to the worker, then the slot from it. */
export const MAILBOX_BYTES = 128 * 1024;
export const TO_WORKER_OFFSET = 0;
export const FROM_WORKER_OFFSET = MAILBOX_BYTES / 2;

export function mailboxSlot(buffer: SharedArrayBuffer, offset: number, bytes: number): MailboxSlot {
  "use strict";
  const IDLE = 0;
  const POLLING = 1;
  const WRITING = 2;
  const READY = 3;
  const INT32_MAX = 0x7fffffff;
  const WRITER_GRACE_MS = 1;
  // Int32 header: state, a, b, c, text byte length (-1: no text), messages the reader took from its port.
  const header = new Int32Array(buffer, offset, 8);
  const payload = new Uint8Array(buffer, offset + 32, bytes - 32);
  const encoder = new TextEncoder();
  const decoder = new TextDecoder();
  const inInt32 = (n: number): boolean => n >= -INT32_MAX && n <= INT32_MAX && n === Math.trunc(n);
  const open = (): void => {
    Atomics.store(header, 0, POLLING);
  };
  const ready = (): boolean => Atomics.load(header, 0) === READY;
  const countReceived = (): void => {
    Atomics.add(header, 5, 1);
  };
  const take = (): SlotMessage => {
    const length = header[4]!;
    const text = length < 0 ? undefined : decoder.decode(payload.subarray(0, length));
    const taken: SlotMessage = [header[1]!, header[2]!, header[3]!, text];
    Atomics.store(header, 0, IDLE);
    return taken;
  };
  const close = (): boolean => {
    let deadline = 0;
    for (;;) {
      const state = Atomics.compareExchange(header, 0, POLLING, IDLE);
      if (state === READY) return true;
      if (state !== WRITING) return false;
      // A writer between its claim and its publish takes microseconds. One that takes longer
      // (descheduled, or its thread died mid-write: out of memory, out of stack) is cut off;
      // its publish then fails and it sends by message instead.
      const now = performance.now();
      if (deadline === 0) deadline = now + WRITER_GRACE_MS;
      else if (now > deadline && Atomics.compareExchange(header, 0, WRITING, IDLE) === WRITING) return false;
    }
  };
  return {
    open,
    ready,
    countReceived,
    take,
    close,
    poll(ms, receive, fromSlot, fromPort): boolean {
      open();
      const until = performance.now() + ms;
      let round = 0;
      do {
        if (ready()) {
          fromSlot(take());
          return true;
        }
        if ((++round & 15) === 0) {
          const received = receive();
          if (received !== undefined) {
            // A message in the slot now was offered before this one was counted: it is older.
            if (close()) fromSlot(take());
            countReceived();
            fromPort(received.message);
            return true;
          }
        }
      } while (performance.now() < until);
      if (close()) fromSlot(take());
      return false;
    },
    offer(a: number, b: number, c: number, text: string | undefined, posted: number): boolean {
      // UTF-8 cannot carry a lone surrogate (it would arrive as U+FFFD).
      if (text !== undefined && (text.length > payload.length || !text.isWellFormed())) return false;
      if (!inInt32(a) || !inInt32(b) || !inInt32(c)) return false;
      if (Atomics.compareExchange(header, 0, POLLING, WRITING) !== POLLING) return false;
      let written = false;
      try {
        if (Atomics.load(header, 5) !== (posted | 0)) return false;
        let length = -1;
        if (text !== undefined) {
          const result = encoder.encodeInto(text, payload);
          if (result.read !== text.length) return false;
          length = result.written;
        }
        header[1] = a;
        header[2] = b;
        header[3] = c;
        header[4] = length;
        written = true;
      } finally {
        // Publish (the state store makes the fields above visible to the reader's atomic load of
        // it), or retreat; a reader that cut the wait off has already moved on.
        if (Atomics.compareExchange(header, 0, WRITING, written ? READY : POLLING) !== WRITING) written = false;
      }
      return written;
    },
  };
}
