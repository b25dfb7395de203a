// What the sandbox probably denied a failed command, read from its output: writes refused by the read-only file
// system, reads of hidden paths, connections without a network. Worded for the tool result and the escalation
// question ("a write to /etc/hosts"). A guess from messages, so it never decides anything by itself: it only lets
// the engine offer to re-run the command outside the sandbox.
import type { Layout } from "./layout.ts";

const MAX_DENIALS = 3;
const READ_ONLY = /read-only file system|EROFS/i;
/** On macOS a Seatbelt refusal reads as EPERM. */
const NOT_PERMITTED = /operation not permitted|EPERM/i;
const NO_NETWORK =
  /network is unreachable|ENETUNREACH|could not resolve host|temporary failure in name resolution|EAI_AGAIN|name or service not known|nodename nor servname|connection refused|ECONNREFUSED/i;
const QUOTED = /['‘"`]([^'’"`\n]+)['’"`]/;
const BEFORE_MESSAGE = /(?:^|\s)([^\s:'"‘’]+):\s*(?:read-only file system|operation not permitted)/i;

export function denialsIn(output: string, layout: Layout, platform: NodeJS.Platform = process.platform): string[] {
  const found = new Set<string>();
  const hidden = [...layout.hiddenFiles, ...layout.hiddenDirs];
  for (const line of output.split("\n")) {
    if (found.size >= MAX_DENIALS) break;
    const hiddenPath = hidden.find((path) => line.includes(path));
    if (hiddenPath !== undefined) {
      found.add(`a read of ${hiddenPath}, which the sandbox hides`);
      continue;
    }
    if (READ_ONLY.test(line) || (platform === "darwin" && NOT_PERMITTED.test(line))) {
      const path = writtenPath(line);
      found.add(path === undefined ? "a write outside the writable folders" : `a write to ${path}`);
      continue;
    }
    if (!layout.network && NO_NETWORK.test(line)) found.add("a network connection (network_access is off)");
  }
  return [...found];
}

function writtenPath(line: string): string | undefined {
  const quoted = QUOTED.exec(line)?.[1];
  if (quoted !== undefined && (quoted.includes("/") || quoted.includes("."))) return quoted;
  return BEFORE_MESSAGE.exec(line)?.[1];
}
