// A watch stream the file watch keeps track of: it can be ended with an error from outside, and
// tells when it closes.
import type { IpamError, WatchEvent, WatchStream } from '@netledger/ipam-core';

/** A stream that can be failed from outside. */
export interface TrackedStream extends WatchStream {
  /** Ends the stream; its consumer gets `error` after the events already delivered. */
  fail(error: IpamError): void;
}

/**
 * Wraps `inner`: closing it (by `close`, `fail`, `signal`'s abort or the end of iteration) closes
 * `inner` and calls `onClose`, every time it is closed.
 */
export function trackStream(
  inner: WatchStream,
  o: { readonly signal: AbortSignal | undefined; readonly onClose: (s: TrackedStream) => void },
): TrackedStream {
  let failure: IpamError | undefined;
  const stream: TrackedStream = {
    established: inner.established,
    fail(error) {
      failure ??= error;
      stream.close();
    },
    close() {
      inner.close();
      o.onClose(stream);
    },
    async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
      try {
        for await (const event of inner) yield event;
        if (failure) throw failure;
      } finally {
        stream.close();
      }
    },
  };
  o.signal?.addEventListener('abort', () => stream.close(), { once: true });
  return stream;
}
