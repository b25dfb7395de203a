import { notYetAvailable } from "./exit.ts";

export async function runChat(_options: Record<string, unknown>): Promise<number> {
  return notYetAvailable("chat");
}
