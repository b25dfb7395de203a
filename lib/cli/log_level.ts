import { logLevelProblem } from "../util/log.ts";

/** True (after saying why on stderr) when `SCV_LOG` is set to something that is not a log level. */
export function refusesLogLevel(command: string, setting: string | undefined): boolean {
  const problem = logLevelProblem(setting);
  if (problem === undefined) return false;
  process.stderr.write(`scv ${command}: ${problem}\n`);
  return true;
}
