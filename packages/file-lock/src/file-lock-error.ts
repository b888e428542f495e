/** Why a lock call failed: it waited `timeoutMs` for a live holder, or a file call failed. */
export type FileLockErrorCode = 'Timeout' | 'Io';

/** What a {@link FileLockError} is about. */
export interface FileLockErrorOptions {
  readonly lockPath: string;
  /** For `Io`: what the lock was doing (`creating lock <path>`, ...). */
  readonly doing?: string;
  /** For `Io`: the fs error. */
  readonly cause?: unknown;
}

/**
 * The one error a lock throws. `Timeout`: the message says who holds the lock (`<lockPath> is held
 * by pid N; gave up after T ms ...`), for callers to prefix. `Io`: `doing` and the fs error as
 * `cause`, for callers to map to their own error (a store's `Unavailable`, a CNI code).
 */
export class FileLockError extends Error {
  override readonly name = 'FileLockError';
  readonly lockPath: string;
  readonly doing: string | undefined;

  constructor(
    readonly code: FileLockErrorCode,
    message: string,
    options: FileLockErrorOptions,
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.lockPath = options.lockPath;
    this.doing = options.doing;
  }
}

/** `Io` for a failed file call while `doing` something with the lock. */
export function lockIoError(lockPath: string, doing: string, cause: unknown): FileLockError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new FileLockError('Io', `${doing} failed (${detail})`, { lockPath, doing, cause });
}
