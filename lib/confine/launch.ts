// What a back end hands back: the command line that runs a program confined, and what to add to its environment.

/** The program to confine: an executable and its arguments (looked up on PATH inside, as outside). */
export type Program = {
  file: string;
  args: readonly string[];
  /**
   * The caller starts the launch in a session and process group of its own (bash's detached process groups): the
   * program stays in that group, so that killing the group reaches it. Otherwise bubblewrap starts a new session (no
   * terminal to push keystrokes into).
   */
  ownSession?: boolean;
};

export type Launch = {
  file: string;
  args: string[];
  /** Variables to set in the process's environment on top of the caller's. */
  env: Record<string, string>;
};
