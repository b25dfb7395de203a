import { notYetAvailable } from "./exit.ts";

export async function runServer(_options: Record<string, unknown>): Promise<number> {
  return notYetAvailable("server");
}
