// Every secret value scv knows (config.secrets.values) is kept out of what a tool hands back: its output
// (which becomes the tool.completed event and the provider history), its progress lines and the approval
// texts. One wrapper per tool, applied by the registry, so a tool added later is covered without knowing.
import type { Redactor } from "../util/redact.ts";
import type { Tool } from "./types.ts";

export function withRedaction(tool: Tool, redact: Redactor): Tool {
  return {
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
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
        run: async (runContext) => {
          const outcome = await prepared.run({ ...runContext, progress: (text) => runContext.progress(redact(text)) });
          return { ...outcome, output: redact(outcome.output) };
        },
      };
    },
  };
}
