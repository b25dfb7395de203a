// Slash commands typed at the chat prompt.

export const SLASH_COMMANDS: ReadonlyArray<{ name: string; usage: string; help: string }> = [
  { name: "help", usage: "/help", help: "show the commands and keys" },
  { name: "model", usage: "/model [name]", help: "show the model, or switch to another (the conversation continues)" },
  { name: "clear", usage: "/clear", help: "forget the conversation so far" },
  { name: "resume", usage: "/resume [id]", help: "continue a stored session (no id: pick from a list)" },
  { name: "fork", usage: "/fork", help: "copy this session into a new one and go on there" },
  {
    name: "approvals",
    usage: "/approvals [policy]",
    help: "show the approval policy, or switch: on-risk, always, never",
  },
  { name: "image", usage: "/image PATH", help: "attach an image to your next prompt (or paste its path)" },
  { name: "mcp", usage: "/mcp", help: "list the MCP servers, their state and tools" },
  { name: "usage", usage: "/usage", help: "token usage of the last turn and of this chat" },
  { name: "exit", usage: "/exit", help: "leave scv chat (also Ctrl-D, or Ctrl-C twice)" },
];

export type SlashCommand = { name: string; argument: string };

/**
 * A slash command, or undefined when the text is a prompt: it does not start with "/", or its first word holds
 * another "/" (a pasted absolute path such as `/home/me/shot.png` is no command).
 */
export function parseSlash(text: string): SlashCommand | undefined {
  const trimmed = text.trim();
  if (!trimmed.startsWith("/") || trimmed.startsWith("//")) return undefined;
  const match = /^\/(\S*)\s*([\s\S]*)$/.exec(trimmed)!;
  if (match[1]!.includes("/")) return undefined;
  const name = match[1]!.toLowerCase();
  return { name: name === "quit" ? "exit" : name, argument: match[2]!.trim() };
}

export function helpText(): string[] {
  return [
    "Commands:",
    ...SLASH_COMMANDS.map((command) => `  ${command.usage.padEnd(20)} ${command.help}`),
    "Keys: Enter sends · Ctrl-J adds a line · Up/Down browse history · Ctrl-R searches it",
    "      Tab completes a /command · Esc or Ctrl-C cancels a turn · Ctrl-C twice or Ctrl-D exits",
    "      an approval takes y, yes, n, no, a or always, then Enter",
  ];
}

/**
 * The path in `text` when it looks like a pasted file path of an image: one line, ending in an image extension,
 * maybe quoted or with backslash-escaped spaces (as terminals paste dropped files). Undefined otherwise.
 */
export function pastedPath(text: string): string | undefined {
  let candidate = text.trim();
  if (candidate === "" || candidate.includes("\n")) return undefined;
  const quoted = /^(['"])(.*)\1$/.exec(candidate);
  if (quoted) candidate = quoted[2]!;
  else candidate = candidate.replace(/\\ /g, " ");
  if (!/\.(png|jpe?g|gif|webp)$/i.test(candidate)) return undefined;
  if (/\s/.test(candidate) && !quoted && !/\\ /.test(text)) return undefined;
  return candidate;
}
