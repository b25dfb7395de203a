// A command's request to the engine (undo, rewind, compact): the transcript shows the reply, or the engine's error;
// a request that could not be sent at all (the session is not open yet, the engine has gone) is said here.
import type { SessionController } from "../../client/index.ts";
import type { CommandChat } from "./command.ts";

type Request = Parameters<SessionController["longSessionRequest"]>[0];

export async function engineRequest(chat: CommandChat, message: Request): Promise<void> {
  try {
    await chat.controller.longSessionRequest(message);
  } catch (error) {
    chat.note([`could not send ${message.type}: ${(error as Error).message}`]);
  }
}
