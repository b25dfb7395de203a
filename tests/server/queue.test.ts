import { describe, expect, it } from "vitest";
import { MAX_QUEUE_BYTES, MAX_QUEUE_ENTRIES, PromptQueue } from "../../lib/server/queue.ts";

function filled(...prompts: string[]) {
  const queue = new PromptQueue();
  const ids = prompts.map((prompt) => {
    const result = queue.enqueue(prompt, `r-${prompt}`);
    if (!result.ok) throw new Error("enqueue failed");
    return result.value.entry.queue_id;
  });
  return { queue, ids, order: () => queue.entries.map((entry) => entry.prompt) };
}

describe("PromptQueue", () => {
  it("enqueues at the end with revision 1, a UUID and the submitter", () => {
    const queue = new PromptQueue();
    const first = queue.enqueue("a", "r1");
    const second = queue.enqueue("b", "r2");
    expect(first.ok && first.value.position).toBe(0);
    expect(second.ok && second.value.position).toBe(1);
    expect(second.ok && second.value.entry).toMatchObject({ revision: 1, prompt: "b", submitter: "r2" });
    expect(second.ok && second.value.entry.queue_id).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("updates with the current revision only", () => {
    const { queue, ids } = filled("a");
    expect(queue.update(ids[0]!, 2, "x")).toEqual({ ok: false, code: "queue_conflict" });
    const updated = queue.update(ids[0]!, 1, "x");
    expect(updated.ok && updated.value).toMatchObject({ prompt: "x", revision: 2 });
    expect(queue.update("missing", 1, "x")).toEqual({ ok: false, code: "queue_not_found" });
  });

  it("moves before another entry or to the end, bumping the revision", () => {
    const { queue, ids, order } = filled("a", "b", "c", "d");
    expect(queue.move(ids[3]!, 1, ids[1]!)).toEqual({ ok: true, value: { position: 1, revision: 2 } });
    expect(order()).toEqual(["a", "d", "b", "c"]);
    expect(queue.move(ids[0]!, 1, ids[2]!)).toEqual({ ok: true, value: { position: 2, revision: 2 } });
    expect(order()).toEqual(["d", "b", "a", "c"]);
    expect(queue.move(ids[1]!, 1, null)).toEqual({ ok: true, value: { position: 3, revision: 2 } });
    expect(order()).toEqual(["d", "a", "c", "b"]);
    expect(queue.move(ids[1]!, 1, null)).toEqual({ ok: false, code: "queue_conflict" });
  });

  it("treats a self-move as a no-op with unchanged revision and index", () => {
    const { queue, ids, order } = filled("a", "b");
    expect(queue.move(ids[1]!, 1, ids[1]!)).toEqual({ ok: true, value: { position: 1, revision: 1 } });
    expect(order()).toEqual(["a", "b"]);
  });

  it("rejects moving before an unknown entry without changing anything", () => {
    const { queue, ids, order } = filled("a", "b");
    expect(queue.move(ids[0]!, 1, "ghost")).toEqual({ ok: false, code: "queue_not_found" });
    expect(order()).toEqual(["a", "b"]);
    expect(queue.entries[0]!.revision).toBe(1);
  });

  it("removes with the current revision and reports it", () => {
    const { queue, ids, order } = filled("a", "b");
    queue.update(ids[1]!, 1, "b2");
    expect(queue.remove(ids[1]!, 1)).toEqual({ ok: false, code: "queue_conflict" });
    const removed = queue.remove(ids[1]!, 2);
    expect(removed.ok && removed.value.revision).toBe(2);
    expect(order()).toEqual(["a"]);
    expect(queue.remove(ids[1]!, 2)).toEqual({ ok: false, code: "queue_not_found" });
  });

  it("enforces the entry and byte limits, including on update", () => {
    const queue = new PromptQueue();
    for (let index = 0; index < MAX_QUEUE_ENTRIES; index += 1) expect(queue.enqueue("p", "r").ok).toBe(true);
    expect(queue.enqueue("p", "r")).toEqual({ ok: false, code: "queue_limit" });

    const bytes = new PromptQueue();
    const half = "é".repeat(MAX_QUEUE_BYTES / 4); // 2 bytes each: half the budget
    const first = bytes.enqueue(half, "r");
    expect(bytes.enqueue(half, "r").ok).toBe(true);
    expect(bytes.enqueue("x", "r")).toEqual({ ok: false, code: "queue_limit" });
    expect(first.ok && bytes.update(first.value.entry.queue_id, 1, `${half}x`)).toEqual({
      ok: false,
      code: "queue_limit",
    });
  });

  it("shifts the head and clears", () => {
    const { queue } = filled("a", "b");
    expect(queue.shift()?.prompt).toBe("a");
    queue.clear();
    expect(queue.length).toBe(0);
    expect(queue.shift()).toBeUndefined();
  });
});
