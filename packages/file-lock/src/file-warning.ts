/**
 * A cleanup that failed without failing the call that made it (a file left behind, a handle not
 * closed): what was being done, on which file, and why. The lock and the file store hand these to
 * their `onWarning` option.
 */
export interface FileWarning {
  /** What failed and what it leaves behind, e.g. `could not remove the lock breaker`. */
  readonly message: string;
  readonly path: string;
  /** The error the cleanup failed with. */
  readonly cause: unknown;
}

/** Where warnings go: a logger, a test's list. Called synchronously; what it throws is ignored. */
export type OnFileWarning = (warning: FileWarning) => void;

/**
 * `onWarning` made safe to call from a cleanup: a no-op without one, and what it throws is
 * dropped, since a warning must not change the outcome of the call it is about.
 */
export function safeWarner(onWarning: OnFileWarning | undefined): OnFileWarning {
  if (!onWarning) return () => undefined;
  return (warning) => {
    try {
      onWarning(warning);
    } catch {
      // Dropped, as OnFileWarning's contract says: see above.
    }
  };
}

/** One line for a log: `<message> <path>: <cause>`. Pure. */
export function formatFileWarning(warning: FileWarning): string {
  const cause = warning.cause instanceof Error ? warning.cause.message : String(warning.cause);
  return `${warning.message} ${warning.path}: ${cause}`;
}
