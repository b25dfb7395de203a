// Logs go to stderr only (stdout carries protocol frames), at the level named by SCV_LOG (default `warn`), each line
// prefixed with the program that wrote it (`scv server warn: …`, `scv chat warn: …`).

export type LogLevel = "error" | "warn" | "info" | "debug";
const ORDER: Record<LogLevel, number> = { error: 0, warn: 1, info: 2, debug: 3 };

export type Logger = Record<LogLevel, (message: string) => void>;

export const LOG_LEVELS = Object.keys(ORDER) as LogLevel[];

/** Why a SCV_LOG value is refused (an unknown level), or undefined when it is one of the levels or unset. */
export function logLevelProblem(setting: string | undefined): string | undefined {
  const wanted = setting?.trim().toLowerCase() ?? "";
  if (wanted === "" || Object.hasOwn(ORDER, wanted)) return undefined;
  return `SCV_LOG=${JSON.stringify(setting)} is not a log level; use one of ${LOG_LEVELS.join(", ")} (default warn)`;
}

export function createLogger(
  setting: string | undefined,
  prefix = "scv server",
  sink: (line: string) => void = (line) => process.stderr.write(line),
): Logger {
  const wanted = setting?.trim().toLowerCase() ?? "";
  const threshold = Object.hasOwn(ORDER, wanted) ? ORDER[wanted as LogLevel] : ORDER.warn;
  const at = (level: LogLevel) => (message: string) => {
    if (ORDER[level] <= threshold) sink(`${prefix} ${level}: ${message}\n`);
  };
  return { error: at("error"), warn: at("warn"), info: at("info"), debug: at("debug") };
}

export const silentLogger: Logger = { error() {}, warn() {}, info() {}, debug() {} };
