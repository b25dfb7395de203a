// The heredoc wrappings of a patch that the Codex CLI's parser accepts, so a model trained on Codex's shell habits
// is understood: the patch between `<<'EOF'` (or `<<EOF`, `<<"EOF"`) and a last line ending in `EOF` (Codex's
// lenient mode), and the shell form `apply_patch <<'DELIM'` … `DELIM` (also `applypatch`, any delimiter word),
// optionally after `cd <folder> &&`, which makes the patch's paths relative to that folder.

const LENIENT_OPENERS = new Set(["<<EOF", "<<'EOF'", '<<"EOF"']);
const SHELL_OPENER =
  /^(?:cd\s+(?:'([^']+)'|"([^"]+)"|([^\s'"&;|<>]+))\s*&&\s*)?(?:apply_patch|applypatch)\s*<<-?\s*(?:'([^'\s]+)'|"([^"\s]+)"|([A-Za-z0-9_]+))$/;

/** The patch inside a heredoc wrapping and the folder a `cd` before it names, or undefined when `input` has none. */
export function heredocBody(input: string): { body: string; cd?: string } | undefined {
  const lines = input.trim().split("\n").map((line) => (line.endsWith("\r") ? line.slice(0, -1) : line));
  // Two lines of wrapping around at least `*** Begin Patch` and `*** End Patch`.
  if (lines.length < 4) return undefined;
  const first = lines[0]!.trim();
  const last = lines.at(-1)!;
  const inner = lines.slice(1, -1).join("\n");
  if (LENIENT_OPENERS.has(first)) return last.endsWith("EOF") ? { body: inner } : undefined;
  const shell = SHELL_OPENER.exec(first);
  if (shell === null) return undefined;
  const cd = shell[1] ?? shell[2] ?? shell[3];
  const delimiter = shell[4] ?? shell[5] ?? shell[6]!;
  if (last.trim() !== delimiter) return undefined;
  return cd === undefined ? { body: inner } : { body: inner, cd };
}
