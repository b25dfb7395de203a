// What to do about the failures that local servers give when they were started without the flags tool calls
// need (docs/local-models.md): the hint names the flag even where the server's own text does not.
const HINTS: Array<{ pattern: RegExp; hint: string }> = [
  {
    pattern: /--jinja|tools param requires/i,
    hint: "start llama-server with --jinja for tool calls (see docs/local-models.md)",
  },
  {
    pattern: /enable-auto-tool-choice|tool-call-parser|"auto" tool choice/i,
    hint:
      "start vLLM with --enable-auto-tool-choice --tool-call-parser <parser> for tool calls (see docs/local-models.md)",
  },
  {
    pattern: /does not support tools/i,
    hint:
      "this Ollama model has no tool support: use one that has, such as qwen3 or llama3.1 (see docs/local-models.md)",
  },
  {
    pattern:
      /exceeds? the available context|context (?:size|length|window) (?:has been )?exceeded|maximum context length/i,
    hint:
      "the server's context window is too small: raise it (llama-server -c, vLLM --max-model-len, OLLAMA_CONTEXT_LENGTH) or lower [context] max_tokens (see docs/local-models.md)",
  },
];

/** `message` with `; <hint>` appended when it is a known local-server configuration failure. */
export function withConfigurationHint(message: string): string {
  for (const { pattern, hint } of HINTS) if (pattern.test(message)) return `${message}; ${hint}`;
  return message;
}
