import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";

// Files that start processes or workers (the CLI, the worker sandbox) keep one fresh worker process per file;
// the rest share workers (isolate: false), which skips a fork and a module graph per file. Measured on the
// 2-core machine under load: the in-process folders 48 s → 20 s, every test passing.
const PROCESS_LEVEL = [
  "tests/e2e/**",
  "tests/host/**",
  "tests/acp/**",
  "tests/sandbox/**",
  "tests/release/**",
  "tests/docs/**",
];

export default defineConfig({
  test: {
    // Deadlines only catch hangs (tests/support/wait.ts: HANG_MS for one wait); a test never bounds how long its
    // work takes and never retries, so that the suite passes with every core busy (`npm run stress`).
    testTimeout: 1_200_000,
    // Hooks may compile the binary (tests/support/binary.ts), which takes minutes on a busy machine.
    hookTimeout: 1_200_000,
    pool: "forks",
    // Vitest's default is cores - 1 (one worker on 2 cores); most of the suite's time is spent waiting on the
    // child processes it starts, so one worker per core is faster (tests/e2e: 116 s → 101 s on 2 loaded cores).
    maxWorkers: Math.max(2, availableParallelism()),
    reporters: ["default"],
    projects: [
      {
        extends: true,
        test: {
          name: "unit",
          include: ["tests/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...PROCESS_LEVEL],
          isolate: false,
        },
      },
      {
        extends: true,
        test: { name: "process", include: PROCESS_LEVEL.map((folder) => `${folder}/*.test.ts`) },
      },
    ],
  },
});
