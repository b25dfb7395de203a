// What a back end hands back: the command line that runs a program confined, and what to add to its environment.

/** The program to confine: an executable and its arguments (looked up on PATH inside, as outside). */
export type Program = { file: string; args: readonly string[] };

export type Launch = {
  file: string;
  args: string[];
  /** Variables to set in the process's environment on top of the caller's. */
  env: Record<string, string>;
};
