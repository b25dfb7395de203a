import { describe, expect, it } from "vitest";
import { Approvals, decide } from "../../lib/server/approvals.ts";

describe("decide (policy × risk)", () => {
  it("follows the §6.5 table", () => {
    const risks = ["read_only", "filesystem", "process", "network"] as const;
    expect(risks.map((risk) => decide("on-risk", risk))).toEqual(["run", "ask", "ask", "ask"]);
    expect(risks.map((risk) => decide("always", risk))).toEqual(["ask", "ask", "ask", "ask"]);
    expect(risks.map((risk) => decide("never", risk))).toEqual(["run", "deny", "deny", "deny"]);
  });
});

describe("Approvals", () => {
  it("gives each request a fresh UUID v4 and resolves it once", async () => {
    const approvals = new Approvals();
    const signal = new AbortController().signal;
    const first = approvals.open(signal);
    const second = approvals.open(signal);
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
    const pending = approvals.open(controller.signal);
    controller.abort();
    await expect(pending.decision).rejects.toMatchObject({ name: "AbortError" });
    expect(approvals.resolve(pending.approvalId, true)).toBe(false);
    const late = approvals.open(controller.signal);
    await expect(late.decision).rejects.toMatchObject({ name: "AbortError" });
    expect(approvals.size).toBe(0);
  });
});
