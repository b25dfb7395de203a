const FRAME = /^ {4}at /;
const CELL_FILE = "exec_main.mjs";
const RUNTIME_FILE = "scv-runtime.js";
/** Node's own frames (the sandbox process's event loop, e.g. processTicksAndRejections) are scv-internal too. */
const NODE_INTERNAL = /\(?node:internal\//;

/**
 * Removes scv-internal stack frames from an `error_text` (host spec §7.1: frames read
 * `exec_main.mjs:<line>:<col>`, scv-internal frames omitted): the cell runtime's frames, the
 * frames the runtime called before the error reached cell code (`at stringify (<anonymous>)`
 * for `text(circular)`: the reference's API is native and shows none), and every frame below
 * the cell's last one (the worker that called into the cell). Built-in frames between cell
 * frames (`at Array.map (<anonymous>)`) and non-frame lines stay.
 */
export function cleanErrorText(text: string): string {
  if (!text.includes("\n    at ")) return text;
  const lines = text.split("\n");
  let firstCellFrame = -1;
  let lastCellFrame = -1;
  // The last runtime frame above the first cell frame: everything above it ran for the runtime.
  let runtimeTop = -1;
  lines.forEach((line, index) => {
    if (!FRAME.test(line)) return;
    if (line.includes(CELL_FILE)) {
      if (firstCellFrame < 0) firstCellFrame = index;
      lastCellFrame = index;
    } else if (firstCellFrame < 0 && line.includes(RUNTIME_FILE)) {
      runtimeTop = index;
    }
  });
  return lines
    .filter(
      (line, index) =>
        !FRAME.test(line) ||
        (index > runtimeTop && index <= lastCellFrame && !line.includes(RUNTIME_FILE) && !NODE_INTERNAL.test(line)),
    )
    .join("\n");
}
