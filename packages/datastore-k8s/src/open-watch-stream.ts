// Opening a watch request, with cockatiel's retry policy for the reconnects: no connection, 429
// (throttled) and 5xx (an API server starting or overloaded: "please try again") are tried again
// after a doubling backoff; anything else (410 Gone, 403) ends the watch at once.
import { ExponentialBackoff, handleType, noJitterGenerator, retry } from 'cockatiel';
import { IpamError } from '@netledger/ipam-core';
import type { KubeCallContext } from './map-kube-error.js';
import { kubeStatusError, kubeTransportError } from './map-kube-error.js';
import type { KubeStream } from './kube-stream.js';

/**
 * Consecutive failed reconnects (no connection, or a 429/5xx answer) after which the watch gives
 * up with `Unavailable`.
 */
const MAX_RECONNECTS = 6;
/** The wait after the first failure; it doubles with each consecutive one (200 ms to 6.4 s). */
const FIRST_BACKOFF_MS = 200;

/** A failed open worth another try; carries the error the watch ends with if none is left. */
class Reconnectable extends Error {
  constructor(readonly error: IpamError) {
    super(error.message);
  }
}

/**
 * Opens the watch with `open` until it answers 200, retrying as above. `failures` counts the
 * consecutive failures already behind (a dropped stream is one): they shorten the retries left
 * and lengthen the first wait. Resolves undefined once `signal` aborts (the watch was closed);
 * rejects with the mapped error of the last failure, or at once with an `IpamError` from `open`
 * (the datastore was closed).
 */
export async function openWatchStream(
  open: () => Promise<KubeStream>,
  o: {
    readonly failures: number;
    readonly signal: AbortSignal;
    readonly ctx: Omit<KubeCallContext, 'write'>;
  },
): Promise<KubeStream | undefined> {
  const policy = retry(handleType(Reconnectable), {
    maxAttempts: MAX_RECONNECTS - o.failures,
    backoff: new ExponentialBackoff({
      generator: noJitterGenerator,
      initialDelay: FIRST_BACKOFF_MS * 2 ** o.failures,
      maxDelay: Infinity,
    }),
  });
  try {
    return await policy.execute(async () => {
      if (o.signal.aborted) return undefined;
      let stream;
      try {
        stream = await open();
      } catch (e) {
        if (e instanceof IpamError) throw e; // the datastore was closed
        throw new Reconnectable(kubeTransportError(e, { ...o.ctx, write: false }));
      }
      if (stream.status === 200) return stream;
      const error = kubeStatusError(stream.status, stream.body, o.ctx);
      if (o.signal.aborted || !(stream.status === 429 || stream.status >= 500)) throw error;
      throw new Reconnectable(error);
    }, o.signal);
  } catch (e) {
    if (!(e instanceof Reconnectable)) throw e;
    if (o.signal.aborted) return undefined;
    throw e.error;
  }
}
