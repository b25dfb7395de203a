// Racing a promise against an AbortSignal without leaking listeners on long-lived signals.

/**
 * Settles like `promise`, unless `signal` aborts first: then settles with `onAbort()`, which may
 * return a value or throw. The abort listener is removed once `promise` settles.
 */
export function raceAbort<T, A>(promise: Promise<T>, signal: AbortSignal, onAbort: () => A): Promise<T | A> {
  return new Promise<T | A>((resolve, reject) => {
    const abort = (): void => {
      try {
        resolve(onAbort());
      } catch (error) {
        reject(error);
      }
    };
    if (signal.aborted) return abort();
    signal.addEventListener("abort", abort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener("abort", abort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener("abort", abort);
        reject(error);
      },
    );
  });
}

/** The error an aborted operation rejects with: recognised everywhere by `name === "AbortError"`. */
export function abortError(message = "The operation was aborted"): Error {
  const error = new Error(message);
  error.name = "AbortError";
  return error;
}
