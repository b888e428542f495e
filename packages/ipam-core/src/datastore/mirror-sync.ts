import type { IBackoff } from 'cockatiel';
import { ExponentialBackoff, noJitterGenerator } from 'cockatiel';
import { IpamError } from '../errors.js';
import type { ListOptions } from '../model/keys.js';
import { matchesListOptions } from '../model/keys.js';
import type { Datastore, WatchEvent, WatchStream } from './datastore.js';
import type { MirrorState } from './mirror-state.js';
import { parseRevision } from './revision.js';

/** Timers the mirror's re-sync backoff runs on (injected in tests). */
export interface MirrorTimers {
  setTimeout(run: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Options for {@link MirrorSync}. */
export interface MirrorSyncOptions {
  readonly inner: Datastore;
  /** The lists to mirror, one per kind. */
  readonly lists: readonly ListOptions[];
  readonly state: MirrorState;
  readonly timers: MirrorTimers;
  /** Wait before the first re-sync after a failure, doubled per failure in a row. */
  readonly firstDelayMs: number;
  /** The longest wait between re-syncs. */
  readonly maxDelayMs: number;
  /** Told why the mirror fell back to the store; an observer that throws is ignored. */
  readonly onFallback?: ((error: unknown) => void) | undefined;
}

type Status = 'idle' | 'syncing' | 'synced' | 'waiting' | 'closed';

/** The watches of one sync; stopping closes them all. */
class Watches {
  stopped = false;
  private readonly streams = new Set<WatchStream>();
  add(stream: WatchStream): void {
    if (this.stopped) stream.close();
    else this.streams.add(stream);
  }
  stop(): void {
    this.stopped = true;
    for (const s of this.streams) s.close();
    this.streams.clear();
  }
}

/** Applies one watch event of `list` to the mirror state. */
function applyWatchEvent(state: MirrorState, list: ListOptions, event: WatchEvent): void {
  const key = event.type === 'deleted' ? event.key : event.kv.key;
  // A store whose watch range is wider than the list (the kind, the host).
  if (!matchesListOptions(key, list)) return;
  const revision = parseRevision(event.revision);
  if (event.type === 'deleted') state.observeGone(key, revision);
  else state.observePut(event.kv);
  // Nothing of this kind below this revision is still to come (more of it may be: a
  // transaction's other keys, which the mirror state takes at its watermark).
  state.advance(list.kind, revision);
}

/**
 * Keeps a {@link MirrorState} in step with a store: lists every mirrored kind, then watches each
 * from its list's revision. A failed list, or a watch that fails or ends, makes it fall back
 * (reads go to the store) and re-sync after a backoff doubling per failure in a row, up to the
 * maximum; a working watch resets the backoff. Results of an abandoned sync are dropped.
 */
export class MirrorSync {
  private status: Status = 'idle';
  /** Bumped whenever the current sync and its watches are abandoned; late results are dropped. */
  private generation = 0;
  private initialSync: Promise<void> | undefined;
  private initialSyncDone = false;
  private watches: Watches | undefined;
  private timer: unknown;
  /** cockatiel's exponential backoff: `firstDelayMs` doubling to `maxDelayMs`, without jitter. */
  private readonly backoff: ExponentialBackoff<unknown>;
  /** Where the backoff is in the current run of failures; undefined after a working watch. */
  private lastBackoff: IBackoff<unknown> | undefined;

  constructor(private readonly o: MirrorSyncOptions) {
    this.backoff = new ExponentialBackoff({
      generator: noJitterGenerator,
      initialDelay: o.firstDelayMs,
      maxDelay: o.maxDelayMs,
    });
  }

  /** True while reads can be served from memory. */
  isSynced(): boolean {
    return this.status === 'synced';
  }

  /** True once reads can be served from memory; the first call starts and waits for the first sync. */
  async ready(): Promise<boolean> {
    if (this.status === 'idle') {
      this.initialSync = this.sync().finally(() => {
        this.initialSyncDone = true;
      });
    }
    if (this.initialSync && !this.initialSyncDone) await this.initialSync;
    return this.status === 'synced';
  }

  /** Updates the mirror from a write or refresh; a fact it cannot take breaks the mirror, not the write. */
  learn(update: () => void): void {
    try {
      update();
    } catch (e) {
      if (this.status === 'synced') this.fallBack(this.generation, e);
    }
  }

  /** Stops the watches and the pending re-sync for good. */
  close(): void {
    this.status = 'closed';
    this.generation++;
    this.watches?.stop();
    this.watches = undefined;
    if (this.timer !== undefined) this.o.timers.clearTimeout(this.timer);
    this.timer = undefined;
  }

  private fallBack(gen: number, error: unknown): void {
    if (gen !== this.generation || this.status === 'closed' || this.status === 'idle') return;
    this.generation++;
    this.watches?.stop();
    this.watches = undefined;
    this.status = 'waiting';
    try {
      this.o.onFallback?.(error);
    } catch {
      // A failing observer must not stop the re-sync.
    }
    this.lastBackoff = this.lastBackoff?.next(undefined) ?? this.backoff.next();
    this.timer = this.o.timers.setTimeout(() => {
      this.timer = undefined;
      void this.sync();
    }, this.lastBackoff.duration);
  }

  /** Lists every mirrored kind, then watches each from its list; never rejects. */
  private async sync(): Promise<void> {
    const { inner, lists, state } = this.o;
    const gen = ++this.generation;
    this.status = 'syncing';
    try {
      const results = inner.listMany
        ? await inner.listMany(lists)
        : await Promise.all(lists.map((o) => inner.list(o)));
      if (gen !== this.generation) return;
      for (const [i, o] of lists.entries())
        state.reconcile(o.kind, results[i]!.items, parseRevision(results[i]!.revision));
      const current = new Watches();
      this.watches = current;
      this.status = 'synced';
      for (const [i, o] of lists.entries())
        void this.follow({ gen, list: o, revision: results[i]!.revision, current });
    } catch (e) {
      this.fallBack(gen, e);
    }
  }

  /** Applies one kind's watch until it fails or ends; then falls back and re-syncs. Never rejects. */
  private async follow(args: {
    gen: number;
    list: ListOptions;
    revision: string;
    current: Watches;
  }): Promise<void> {
    const { gen, list, revision, current } = args;
    let error: unknown;
    try {
      const stream = this.o.inner.watch(list, { revision });
      current.add(stream);
      for await (const event of stream) {
        if (gen !== this.generation) return;
        applyWatchEvent(this.o.state, list, event);
        this.lastBackoff = undefined; // the watch works: the next failure starts afresh
      }
    } catch (e) {
      error = e;
    }
    if (!current.stopped)
      this.fallBack(gen, error ?? new IpamError('Unavailable', `watch of ${list.kind} ended`));
  }
}
