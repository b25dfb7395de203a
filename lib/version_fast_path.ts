// `scv --version` (and -V, -v) answered before anything else loads: imported first by main.ts, so
// it runs before commander and the command tree are evaluated. Any other argument list falls through.
import { writeSync } from "node:fs";
import { VERSION } from "./version.ts";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "--version" || args[0] === "-V" || args[0] === "-v")) {
  let code = 0;
  try {
    writeSync(1, `${VERSION}\n`);
  } catch {
    // A closed stdout (`scv --version | true`) is not worth a stack trace.
    code = 1;
  }
  process.exit(code);
}
