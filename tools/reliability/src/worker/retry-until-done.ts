import { ConstantBackoff, handleWhenResult, retry } from 'cockatiel';

/**
 * Makes `attempt` until it resolves true, at most `attempts` times, waiting `backoffMs` between
 * two attempts (cockatiel's retry with a constant backoff); resolves whether one succeeded. An
 * attempt that throws ends the retries with its error.
 */
export async function retryUntilDone(
  attempt: () => Promise<boolean>,
  o: { readonly attempts: number; readonly backoffMs: number },
): Promise<boolean> {
  const policy = retry(
    handleWhenResult((ok) => ok === false),
    { maxAttempts: o.attempts - 1, backoff: new ConstantBackoff(o.backoffMs) },
  );
  return policy.execute(attempt);
}
