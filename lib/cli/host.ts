import { notYetAvailable } from "./exit.ts";

export async function runHost(_options: Record<string, unknown>): Promise<number> {
  return notYetAvailable("host");
}
