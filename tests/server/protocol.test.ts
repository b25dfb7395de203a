import { describe, expect, it } from "vitest";
import { events, parseClientMessage, PROTOCOL_VERSION } from "../../lib/server/protocol.ts";

// The §3 examples, verbatim.
const EXAMPLES = [
  '{"type":"initialize","request_id":"1","protocol_version":3,"client":{"name":"scv-tui","version":"0.1.0"}}',
  '{"type":"session.start","request_id":"2","cwd":"/srv/app","provider":"local","model":"llama3.1","base_url":"http://127.0.0.1:11434/v1","no_tools":true}',
  '{"type":"session.attach","request_id":"3","session_id":"S","cwd":"/srv/app"}',
  '{"type":"turn.start","request_id":"4","session_id":"S","prompt":"Fix the failing test."}',
  '{"type":"queue.update","request_id":"5","session_id":"S","queue_id":"Q","revision":1,"prompt":"Then lint."}',
  '{"type":"queue.move","request_id":"6","session_id":"S","queue_id":"Q","revision":2,"before_queue_id":null}',
  '{"type":"queue.remove","request_id":"7","session_id":"S","queue_id":"Q","revision":3}',
  '{"type":"session.pause","request_id":"8","session_id":"S","paused":true}',
  '{"type":"turn.cancel","request_id":"9","session_id":"S","turn_id":"T"}',
  '{"type":"approval.resolve","request_id":"10","session_id":"S","approval_id":"A","approved":false}',
  '{"type":"session.clear","request_id":"11","session_id":"S"}',
  '{"type":"daemon.control","request_id":"12","command":{"action":"status"}}',
];

describe("parseClientMessage", () => {
  it("accepts every §3 example unchanged", () => {
    expect(PROTOCOL_VERSION).toBe(3);
    for (const line of EXAMPLES) {
      const value = JSON.parse(line);
      const parsed = parseClientMessage(value);
      expect(parsed, line).toEqual({ ok: true, message: value });
    }
  });

  it("drops unknown extra fields and ignored session.start fields", () => {
    const parsed = parseClientMessage({
      type: "session.start",
      request_id: "2",
      cwd: ".",
      channel: "x",
      chat: {},
      system_prompt: "no",
      attachments: [],
      delegation_depth: 2,
      auto_approve: true,
    });
    expect(parsed).toEqual({
      ok: true,
      // system_prompt is kept since issue 20 (upstream parity).
      message: {
        type: "session.start",
        request_id: "2",
        cwd: ".",
        system_prompt: "no",
        delegation_depth: 2,
        auto_approve: true,
      },
    });
  });

  it("accepts null for an optional field and a string before_queue_id", () => {
    expect(parseClientMessage({ type: "session.start", request_id: "1", cwd: ".", model: null }).ok).toBe(true);
    expect(
      parseClientMessage({
        type: "queue.move",
        request_id: "1",
        session_id: "S",
        queue_id: "Q",
        revision: 1,
        before_queue_id: "B",
      }).ok,
    ).toBe(true);
  });

  it("rejects non-objects, missing or unknown types, missing and mistyped fields", () => {
    const cases: Array<[unknown, string]> = [
      [[], "expected a JSON object"],
      [null, "expected a JSON object"],
      ["x", "expected a JSON object"],
      [{ request_id: "1" }, "missing field `type`"],
      [{ type: 3, request_id: "1" }, "invalid type for field `type`"],
      [{ type: "nope", request_id: "1" }, "unknown message type `nope`"],
      [{ type: "toString", request_id: "1" }, "unknown message type"],
      [{ type: "session.clear", session_id: "S" }, "missing field `request_id`"],
      [{ type: "session.clear", request_id: 1, session_id: "S" }, "invalid type for field `request_id`"],
      [{ type: "session.start", request_id: "1" }, "missing field `cwd`"],
      [{ type: "session.start", request_id: "1", cwd: ".", no_tools: "yes" }, "invalid type for field `no_tools`"],
      [
        { type: "initialize", request_id: "1", protocol_version: -1, client: { name: "a", version: "b" } },
        "protocol_version",
      ],
      [
        { type: "initialize", request_id: "1", protocol_version: 2 ** 32, client: { name: "a", version: "b" } },
        "protocol_version",
      ],
      [{ type: "initialize", request_id: "1", protocol_version: 3, client: { name: "a" } }, "client"],
      [
        { type: "queue.update", request_id: "1", session_id: "S", queue_id: "Q", revision: 1.5, prompt: "x" },
        "revision",
      ],
      [
        { type: "queue.move", request_id: "1", session_id: "S", queue_id: "Q", revision: 1 },
        "missing field `before_queue_id`",
      ],
      [{ type: "daemon.control", request_id: "1", command: [] }, "command"],
      [{ type: "session.pause", request_id: "1", session_id: "S", paused: 1 }, "paused"],
    ];
    for (const [value, detail] of cases) {
      const parsed = parseClientMessage(value);
      expect(parsed.ok, JSON.stringify(value)).toBe(false);
      if (!parsed.ok) expect(parsed.detail).toContain(detail);
    }
  });
});

describe("event builders", () => {
  const session = { request_id: "4", session_id: "S" };
  const turn = { ...session, turn_id: "T" };

  it("match the §4 examples byte for byte once seq is set", () => {
    const withSeq = (event: Record<string, unknown>, seq: number) => {
      event.seq = seq;
      return JSON.stringify(event);
    };
    expect(JSON.stringify(events.initialized("1", "0.1.0"))).toBe(
      '{"type":"initialized","request_id":"1","protocol_version":3,"server":{"name":"scv-server","version":"0.1.0"}}',
    );
    expect(withSeq(events.queueSnapshot("S", [], false), 1)).toBe(
      '{"type":"queue.snapshot","request_id":null,"session_id":"S","seq":1,"entries":[],"paused":false}',
    );
    const entry = { queue_id: "Q", revision: 1, prompt: "Then lint.", submitter: "5" };
    expect(withSeq(events.queueEnqueued({ request_id: "5", session_id: "S" }, entry, 0), 7)).toBe(
      '{"type":"queue.enqueued","request_id":"5","session_id":"S","seq":7,"entry":{"queue_id":"Q","revision":1,"prompt":"Then lint.","submitter":"5"},"position":0}',
    );
    expect(withSeq(events.queueMoved({ request_id: "7", session_id: "S" }, "Q", 1, 3), 9)).toBe(
      '{"type":"queue.moved","request_id":"7","session_id":"S","seq":9,"queue_id":"Q","position":1,"revision":3}',
    );
    expect(withSeq(events.queueDequeued({ request_id: "5", session_id: "S" }, "Q", "T2"), 12)).toBe(
      '{"type":"queue.dequeued","request_id":"5","session_id":"S","seq":12,"queue_id":"Q","turn_id":"T2"}',
    );
    expect(withSeq(events.sessionTrimmed(session, 250, 12000000), 14)).toBe(
      '{"type":"session.trimmed","request_id":"4","session_id":"S","seq":14,"removed_messages":250,"history_bytes":12000000}',
    );
    expect(withSeq(events.turnStarted(turn), 2)).toBe(
      '{"type":"turn.started","request_id":"4","session_id":"S","turn_id":"T","seq":2}',
    );
    expect(withSeq(events.assistantDelta(turn, "hello "), 3)).toBe(
      '{"type":"assistant.delta","request_id":"4","session_id":"S","turn_id":"T","seq":3,"content":"hello "}',
    );
    expect(withSeq(events.toolProposed(turn, "c1", "bash", { command: "npm test" }), 6)).toBe(
      '{"type":"tool.proposed","request_id":"4","session_id":"S","turn_id":"T","seq":6,"call_id":"c1","name":"bash","arguments":{"command":"npm test"}}',
    );
    expect(
      withSeq(
        events.approvalRequested(turn, {
          approval_id: "A",
          call_id: "c1",
          name: "bash",
          risk: "process",
          cwd: "/srv/app",
          summary: "Run with /bin/bash -c: npm test",
        }),
        7,
      ),
    ).toBe(
      '{"type":"approval.requested","request_id":"4","session_id":"S","turn_id":"T","seq":7,"approval_id":"A","call_id":"c1","name":"bash","risk":"process","cwd":"/srv/app","summary":"Run with /bin/bash -c: npm test"}',
    );
    expect(withSeq(events.toolProgress(turn, "c1", "PASS app.test.ts"), 9)).toBe(
      '{"type":"tool.progress","request_id":"4","session_id":"S","turn_id":"T","seq":9,"call_id":"c1","text":"PASS app.test.ts"}',
    );
    expect(
      withSeq(
        events.toolCompleted(turn, {
          call_id: "c1",
          name: "bash",
          success: false,
          output: "tool call denied by policy or user",
          truncated: false,
          error: "denied",
        }),
        10,
      ),
    ).toBe(
      '{"type":"tool.completed","request_id":"4","session_id":"S","turn_id":"T","seq":10,"call_id":"c1","name":"bash","success":false,"output":"tool call denied by policy or user","truncated":false,"error":"denied"}',
    );
    expect(withSeq(events.contextCompacted(turn, 130000, 96000, 42), 3)).toBe(
      '{"type":"context.compacted","request_id":"4","session_id":"S","turn_id":"T","seq":3,"before_tokens":130000,"after_tokens":96000,"removed_messages":42}',
    );
    expect(
      withSeq(events.turnRetrying(turn, { attempt: 1, max_attempts: 3, delay_ms: 2000, reason: "HTTP 429" }), 3),
    ).toBe(
      '{"type":"turn.retrying","request_id":"4","session_id":"S","turn_id":"T","seq":3,"attempt":1,"max_attempts":3,"delay_ms":2000,"reason":"HTTP 429"}',
    );
    expect(withSeq(events.turnCompleted(turn, 2, { input_tokens: 7, output_tokens: 3 }), 11)).toBe(
      '{"type":"turn.completed","request_id":"4","session_id":"S","turn_id":"T","seq":11,"steps":2,"usage":{"input_tokens":7,"output_tokens":3}}',
    );
    expect(withSeq(events.turnFailed(turn, "provider_error", "provider stream error: x"), 4)).toBe(
      '{"type":"turn.failed","request_id":"4","session_id":"S","turn_id":"T","seq":4,"code":"provider_error","message":"provider stream error: x"}',
    );
    expect(JSON.stringify(events.error("2", "invalid_request", "cwd is not a directory"))).toBe(
      '{"type":"error","request_id":"2","code":"invalid_request","message":"cwd is not a directory","fatal":false}',
    );
    expect(JSON.stringify(events.error("1", "version_mismatch", "server supports protocol 3"))).toBe(
      '{"type":"error","request_id":"1","code":"version_mismatch","message":"server supports protocol 3","fatal":true}',
    );
  });

  it("leaves out absent optional fields instead of writing null", () => {
    expect(events.error(undefined, "invalid_json", "protocol frame is empty")).toEqual({
      type: "error",
      code: "invalid_json",
      message: "protocol frame is empty",
      fatal: false,
    });
    const success = events.toolCompleted(turn, {
      call_id: "c",
      name: "read",
      success: true,
      output: "{}",
      truncated: false,
      error: "failed",
    });
    expect(success).not.toHaveProperty("error");
    const failure = events.toolCompleted(turn, {
      call_id: "c",
      name: "read",
      success: false,
      output: "x",
      truncated: false,
    });
    expect(failure.error).toBe("failed");
    expect(events.turnCompleted(turn, 1, { input_tokens: undefined, output_tokens: 2 }).usage).toEqual({
      output_tokens: 2,
    });
    expect(JSON.stringify(events.turnCompleted(turn, 1, {}).usage)).toBe("{}");
  });
});
