/** Node's `CODE: description, syscall 'path'` message reduced to its description. */
export function describeFsError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const match = /^[A-Z0-9_]+: ([^,]+)/.exec(error.message);
  return match?.[1] ?? error.message;
}
