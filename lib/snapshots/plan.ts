// Which files a rewind restores, and which it leaves as conflicts (a pure function over content ids).
//
// For each rewound turn the store knows the files the turn changed, each with its content before and after the turn
// (a content id, or null when the file did not exist). For a path the rewound turns changed:
// - the target is its content before the first rewound turn that changed it (so an edit the user made before that
//   turn stays);
// - it is a conflict when it changed outside the agent's turns after that: between two of the turns that changed it,
//   or since the last one (its current content is not what that turn left);
// - it needs nothing when it already holds the target.

/** A file's content as the store names it (mode and hash), or null when there is no file. */
export type ContentId = string | null;

export type FileChange = { before: ContentId; after: ContentId };

/** One rewound turn's changes by workspace-relative path, oldest turn first in the list given to `planRestore`. */
export type TurnChanges = ReadonlyMap<string, FileChange>;

export type RestoreStep = {
  path: string;
  /** The content to put back, null to delete the file. */
  target: ContentId;
  /** The index (in the list given) of the turn whose `before` holds the target. */
  turn: number;
  /** True when the file was a conflict that `force` overrode. */
  forced: boolean;
};

export type RestorePlan = { steps: RestoreStep[]; conflicts: string[] };

export function planRestore(
  turns: readonly TurnChanges[],
  current: (path: string) => ContentId,
  force: boolean,
): RestorePlan {
  const paths = new Set<string>();
  for (const changes of turns) for (const path of changes.keys()) paths.add(path);
  const steps: RestoreStep[] = [];
  const conflicts: string[] = [];
  for (const path of [...paths].sort()) {
    let first: number | undefined;
    let last: FileChange | undefined;
    let interleaved = false;
    turns.forEach((changes, index) => {
      const change = changes.get(path);
      if (change === undefined) return;
      if (first === undefined) first = index;
      else if (last !== undefined && last.after !== change.before) interleaved = true;
      last = change;
    });
    const target = turns[first!]!.get(path)!.before;
    const now = current(path);
    if (now === target) continue;
    const conflict = interleaved || now !== last!.after;
    if (conflict) conflicts.push(path);
    if (conflict && !force) continue;
    steps.push({ path, target, turn: first!, forced: conflict });
  }
  return { steps, conflicts };
}
