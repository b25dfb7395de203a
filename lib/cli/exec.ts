import { notYetAvailable } from "./exit.ts";

export async function runExec(_prompt: string, _options: Record<string, unknown>): Promise<number> {
  return notYetAvailable("exec");
}
