/**
 * Removes stack frames that are not the cell's own (`exec_main.mjs`) from an `error_text`
 * (host spec §7.1: frames read `exec_main.mjs:<line>:<col>`, scv-internal frames omitted).
 * Lines that are not frames (the message, multi-line messages) are kept as they are.
 */
export function cleanErrorText(text: string): string {
  if (!text.includes("\n    at ")) return text;
  return text
    .split("\n")
    .filter((line) => !/^ {4}at /.test(line) || line.includes("exec_main.mjs"))
    .join("\n");
}
