// Every secret value scv knows (config.secrets.values) is kept out of what a tool hands back: its output
// (which becomes the tool.completed event and the provider history), its progress lines and the approval
// texts. One wrapper per tool, applied by the registry, so a tool added later is covered without knowing.
import type { Redactor } from "../util/redact.ts";
import type { PreparedCall, Tool, ToolOutcome } from "./types.ts";

export function withRedaction(tool: Tool, redact: Redactor): Tool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    ...(tool.ready === undefined ? {} : { ready: () => tool.ready!() }),
    prepare(args, context) {
      const prepared = tool.prepare(args, context);
      if ("error" in prepared) return { error: redact(prepared.error) };
      return {
        ...prepared,
        summary: redact(prepared.summary),
        ...(prepared.detail === undefined ? {} : { detail: redact(prepared.detail) }),
        ...(prepared.preview === undefined ? {} : {
          preview: async (previewContext) => {
            const diff = await prepared.preview!(previewContext);
            return diff === undefined ? undefined : redact(diff);
          },
        }),
        run: redactedRun(prepared, redact),
      };
    },
  };
}

/** The call's run with its output and progress redacted, and so the run its escalation offers, if any. */
function redactedRun(prepared: PreparedCall, redact: Redactor): PreparedCall["run"] {
  const outcomeOf = (outcome: ToolOutcome): ToolOutcome => {
    const redacted: ToolOutcome = { ...outcome, output: redact(outcome.output) };
    const escalation = outcome.escalation;
    if (escalation !== undefined) {
      redacted.escalation = {
        arguments: escalation.arguments,
        prepared: {
          ...escalation.prepared,
          summary: redact(escalation.prepared.summary),
          ...(escalation.prepared.detail === undefined ? {} : { detail: redact(escalation.prepared.detail) }),
          run: redactedRun(escalation.prepared, redact),
        },
        declined: (reason) => outcomeOf(escalation.declined(reason)),
      };
    }
    return redacted;
  };
  return async (runContext) =>
    outcomeOf(await prepared.run({ ...runContext, progress: (text) => runContext.progress(redact(text)) }));
}
