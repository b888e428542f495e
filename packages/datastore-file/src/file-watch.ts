import { IpamError } from '@netledger/ipam-core';
import type { ListOptions, WatchEvent, WatchOptions, WatchStream } from '@netledger/ipam-core';
import { createFileHistoryHub } from './file-history-hub.js';
import type { StoreSnapshot } from './store-snapshot.js';
import type { TrackedStream } from './tracked-stream.js';
import { trackStream } from './tracked-stream.js';
import { createWatchPoller } from './watch-poller.js';

/** Options for {@link createFileWatch}. */
export interface FileWatchOptions {
  /** How many events the in-process hub keeps (at least the file's history limit). */
  readonly historyLimit: number;
  /** How often an open watch checks the file for writes by other processes. */
  readonly intervalMs: number;
  /** The snapshot read when opening; its history seeds the hub. */
  readonly initial: StoreSnapshot;
  /** Re-reads the file if it changed; the cache then calls `sync`. */
  readonly poll: () => Promise<void>;
}

/** Watches over a file store: fed by every snapshot this process sees, its own or others'. */
export interface FileWatch {
  /** A stream of matching events after `from` (default: `currentRevision`). */
  watch(options: ListOptions, watchOptions: WatchOptions, currentRevision: number): WatchStream;
  /** Publishes the changes between two snapshots from the newer one's history. */
  sync(previous: StoreSnapshot, next: StoreSnapshot): void;
  /** Ends every open stream with an error. */
  failAll(error: IpamError): void;
  /** Ends every open stream and stops polling. */
  closeAll(): void;
}

const failed = (error: IpamError): WatchStream => ({
  established: Promise.resolve(),
  close: () => undefined,
  // eslint-disable-next-line require-yield
  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
    throw error;
  },
});

/**
 * Creates a {@link FileWatch}. Events come from the history stored in the file, so a watch in
 * one process sees writes made by another: while a stream is open, the file is polled every
 * `intervalMs`. When more changes happened between two looks than the file's history keeps, the
 * open streams end with `WatchExpired` (the caller lists again), as do watches that start before
 * the oldest revision still in the history.
 */
export function createFileWatch(options: FileWatchOptions): FileWatch {
  const streams = new Set<TrackedStream>();
  const failAll = (error: IpamError): void => {
    for (const s of [...streams]) s.fail(error);
  };
  const history = createFileHistoryHub({
    historyLimit: options.historyLimit,
    initial: options.initial,
    expire: failAll,
  });
  const poller = createWatchPoller({
    intervalMs: options.intervalMs,
    poll: options.poll,
    onError: failAll,
  });
  const open = (inner: WatchStream, signal: AbortSignal | undefined): WatchStream => {
    const stream = trackStream(inner, {
      signal,
      onClose: (s) => {
        streams.delete(s);
        poller.setActive(streams.size > 0);
      },
    });
    streams.add(stream);
    if (signal?.aborted) stream.close();
    poller.setActive(streams.size > 0);
    return stream;
  };

  return {
    watch(listOptions, watchOptions, currentRevision) {
      const inner = history.subscribe(listOptions, watchOptions, currentRevision);
      return inner instanceof IpamError ? failed(inner) : open(inner, watchOptions.signal);
    },
    sync: (_previous, next) => history.sync(next),
    failAll,
    closeAll() {
      for (const s of [...streams]) s.close();
      history.closeAll();
      poller.setActive(streams.size > 0);
    },
  };
}
