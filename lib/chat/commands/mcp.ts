// `/mcp`: the session's MCP servers, their state and tools.
import { mcpLines } from "../mcp_view.ts";
import type { SlashCommand } from "./command.ts";

export const mcpCommand: SlashCommand = {
  name: "mcp",
  usage: "/mcp",
  help: "list the MCP servers, their state and tools",
  run(chat) {
    chat.note(mcpLines(chat.mcpStatus()));
    return false;
  },
};
