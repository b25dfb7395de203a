import { describe, expect, it } from "vitest";
import { Approvals } from "../../lib/server/approvals.ts";

const question = { access: { tool: "bash", risk: "process" as const, effect: "run" as const } };

describe("Approvals", () => {
  it("gives each request a fresh UUID v4 and resolves it once", async () => {
    const approvals = new Approvals();
    const signal = new AbortController().signal;
    const first = approvals.open(signal, question);
    const second = approvals.open(signal, question);
    expect(first.approvalId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(second.approvalId).not.toBe(first.approvalId);
    expect(approvals.resolve(first.approvalId, true)).toBe(true);
    expect(approvals.resolve(first.approvalId, false)).toBe(false);
    expect(approvals.resolve("unknown", true)).toBe(false);
    expect(approvals.resolve(second.approvalId, false)).toBe(true);
    await expect(first.decision).resolves.toBe(true);
    await expect(second.decision).resolves.toBe(false);
    expect(approvals.size).toBe(0);
  });

  it("withdraws a waiter when its signal aborts", async () => {
    const approvals = new Approvals();
    const controller = new AbortController();
    const pending = approvals.open(controller.signal, question);
    controller.abort();
    await expect(pending.decision).rejects.toMatchObject({ name: "AbortError" });
    expect(approvals.resolve(pending.approvalId, true)).toBe(false);
    const late = approvals.open(controller.signal, question);
    await expect(late.decision).rejects.toMatchObject({ name: "AbortError" });
    expect(approvals.size).toBe(0);
  });
});
