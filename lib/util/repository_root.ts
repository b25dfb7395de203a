// Where a project begins (issue 30): the nearest folder upward holding `.git`. Started in a subfolder of a
// repository, `scv chat` and `scv exec` work on the repository root, so the model can reach the whole project, and
// the folder the user is in is the working folder (AGENTS.md files are read down to it). Outside a repository both
// are the folder itself.
import { realpath, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";

/**
 * The nearest folder at or above `folder` (absolute, resolved) that holds `.git` (a folder, or the file a worktree
 * or submodule has), or undefined. A folder in `never` (the user's home: a dotfiles repository) is never a root,
 * and the search stops there.
 */
export async function repositoryRoot(folder: string, never: readonly string[] = []): Promise<string | undefined> {
  let current = folder;
  for (;;) {
    if (never.includes(current)) return undefined;
    if (await stat(join(current, ".git")).then(() => true, () => false)) return current;
    const parent = dirname(current);
    if (parent === current) return undefined;
    current = parent;
  }
}

export type StartFolders = {
  /** The session's workspace (`session.start.cwd`). */
  workspace: string;
  /** The folder the user works in (`session.start.working_folder`). */
  workingFolder: string;
};

/**
 * The workspace and working folder of a session started in `folder`. A repository at the user's home folder itself
 * (a dotfiles repository) never becomes the workspace of a folder below it.
 */
export async function startFolders(folder: string, env: Record<string, string | undefined>): Promise<StartFolders> {
  const workingFolder = await realpath(folder).catch(() => resolve(folder));
  const home = env.HOME !== undefined && env.HOME !== "" ? env.HOME : homedir();
  const realHome = await realpath(home).catch(() => resolve(home));
  const root = await repositoryRoot(workingFolder, [realHome]);
  return { workspace: root ?? workingFolder, workingFolder };
}
