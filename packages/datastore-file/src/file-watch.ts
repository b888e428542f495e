import { IpamError } from '@netledger/ipam-core';
import { createWatchHub, matchesListOptions } from '@netledger/ipam-core/adapter';
import type { ListOptions, WatchEvent, WatchOptions, WatchStream } from '@netledger/ipam-core';
import type { WatchHub } from '@netledger/ipam-core/adapter';
import { toWatchEvent } from './history-events.js';
import type { StoreSnapshot } from './store-snapshot.js';

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

interface OpenStream extends WatchStream {
  fail(error: IpamError): void;
}

const failed = (error: IpamError): WatchStream => ({
  established: Promise.resolve(),
  close: () => undefined,
  // eslint-disable-next-line require-yield
  async *[Symbol.asyncIterator](): AsyncGenerator<WatchEvent> {
    throw error;
  },
});

function parseRevision(revision: string): number {
  const n = Number(revision);
  if (!/^\d+$/.test(revision) || !Number.isSafeInteger(n)) {
    throw new IpamError(
      'InvalidArgument',
      `watch revision ${JSON.stringify(revision)} is not a revision`,
    );
  }
  return n;
}

/**
 * Creates a {@link FileWatch}. Events come from the history stored in the file, so a watch in
 * one process sees writes made by another: while a stream is open, the file is polled every
 * `intervalMs`. When more changes happened between two looks than the file's history keeps, the
 * open streams end with `WatchExpired` (the caller lists again), as do watches that start before
 * the oldest revision still in the history.
 */
export function createFileWatch(options: FileWatchOptions): FileWatch {
  /** Created by the first watch: until then nothing decodes the history (a one-shot process never watches). */
  let hub: WatchHub | undefined;
  /** The newest snapshot seen; seeds the hub when the first watch opens. */
  let latest = options.initial;
  /** Watches from a revision below this cannot be served: events were compacted away. */
  let floor = 0;
  let lastPublished = 0;
  let storeId = '';
  const streams = new Set<OpenStream>();
  let timer: NodeJS.Timeout | undefined;
  let polling = false;

  const failAll = (error: IpamError): void => {
    for (const s of [...streams]) s.fail(error);
  };
  const seed = (snapshot: StoreSnapshot): WatchHub => {
    const fresh = createWatchHub({ historyLimit: Math.max(1, options.historyLimit) });
    for (const r of snapshot.history) fresh.publish(toWatchEvent(r));
    floor = snapshot.compactedRevision;
    lastPublished = snapshot.revision;
    storeId = snapshot.storeId;
    hub = fresh;
    return fresh;
  };

  const tick = (): void => {
    if (polling) return;
    polling = true;
    options
      .poll()
      .catch((e: unknown) => {
        const error =
          e instanceof IpamError ? e : new IpamError('Unavailable', String(e), { cause: e });
        failAll(error);
      })
      .finally(() => {
        polling = false;
      });
  };
  const updateTimer = (): void => {
    if (streams.size > 0 && !timer) timer = setInterval(tick, options.intervalMs);
    if (streams.size === 0 && timer) {
      clearInterval(timer);
      timer = undefined;
    }
  };

  const open = (inner: WatchStream, signal: AbortSignal | undefined): WatchStream => {
    let failure: IpamError | undefined;
    const stream: OpenStream = {
      established: inner.established,
      fail(error) {
        failure ??= error;
        stream.close();
      },
      close() {
        inner.close();
        streams.delete(stream);
        updateTimer();
      },
      async *[Symbol.asyncIterator]() {
        try {
          for await (const event of inner) yield event;
          if (failure) throw failure;
        } finally {
          stream.close();
        }
      },
    };
    streams.add(stream);
    signal?.addEventListener('abort', () => stream.close(), { once: true });
    if (signal?.aborted) stream.close();
    updateTimer();
    return stream;
  };

  return {
    watch(listOptions, watchOptions, currentRevision) {
      const active = hub ?? seed(latest);
      const from =
        watchOptions.revision === undefined
          ? currentRevision
          : parseRevision(watchOptions.revision);
      if (from < floor) {
        return failed(
          new IpamError(
            'WatchExpired',
            `watch revision ${from} has been compacted (oldest available: ${floor})`,
          ),
        );
      }
      const inner = active.subscribe({
        matches: (key) => matchesListOptions(key, listOptions),
        fromRevision: from,
        ...(watchOptions.signal && { signal: watchOptions.signal }),
      });
      return open(inner, watchOptions.signal);
    },
    sync(_previous, next) {
      latest = next;
      if (!hub) return;
      if (next.storeId !== storeId || next.revision < lastPublished) {
        failAll(new IpamError('WatchExpired', 'the datastore file was replaced; list again'));
        seed(next);
        return;
      }
      if (next.revision === lastPublished) return;
      if (next.compactedRevision > lastPublished) {
        failAll(
          new IpamError(
            'WatchExpired',
            `missed changes after revision ${lastPublished}: the file keeps history from ${next.compactedRevision}`,
          ),
        );
        floor = next.compactedRevision;
      }
      for (const r of next.history) if (r.revision > lastPublished) hub.publish(toWatchEvent(r));
      lastPublished = next.revision;
    },
    failAll,
    closeAll() {
      for (const s of [...streams]) s.close();
      hub?.closeAll();
      updateTimer();
    },
  };
}
