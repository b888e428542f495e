import { CniError, CniErrorCode } from './cni-error.js';

/**
 * Runs `work`, rejecting with {@link CniError} code 11 (try again later, "`what` timed out after
 * `ms` ms") when it has not settled within `ms`; the work itself is not cancelled (the caller
 * exits or abandons it). The timer is cleared either way.
 */
export async function withTimeout<T>(ms: number, what: string, work: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new CniError(CniErrorCode.TryAgainLater, `${what} timed out after ${ms} ms`)),
      ms,
    );
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
