// The argument of undo and rewind as a user types it after the command, in chat and in an editor (ACP).

/** `--force` (or `force`) alone: true; nothing: false; anything else: undefined. */
export function forceFlag(argument: string): boolean | undefined {
  const words = argument.split(/\s+/).filter((word) => word !== "");
  if (words.length === 0) return false;
  return words.length === 1 && /^(--)?force$/i.test(words[0]!) ? true : undefined;
}
