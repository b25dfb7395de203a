const FRAME = /^ {4}at /;
const CELL_FILE = "exec_main.mjs";
const RUNTIME_FILE = "scv-runtime.js";

/**
 * Removes scv-internal stack frames from an `error_text` (host spec §7.1: frames read
 * `exec_main.mjs:<line>:<col>`, scv-internal frames omitted): the cell runtime's frames, and
 * every frame below the cell's last one (the worker that called into the cell). Built-in frames
 * between cell frames (`at Array.map (<anonymous>)`) and non-frame lines stay.
 */
export function cleanErrorText(text: string): string {
  if (!text.includes("\n    at ")) return text;
  const lines = text.split("\n");
  let lastCellFrame = -1;
  lines.forEach((line, index) => {
    if (FRAME.test(line) && line.includes(CELL_FILE)) lastCellFrame = index;
  });
  return lines
    .filter((line, index) => !FRAME.test(line) || (index <= lastCellFrame && !line.includes(RUNTIME_FILE)))
    .join("\n");
}
