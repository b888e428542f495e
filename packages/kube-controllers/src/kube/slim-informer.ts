import { ListWatch, Watch } from '@kubernetes/client-node';
import type { KubeConfig, KubernetesObject } from '@kubernetes/client-node';
import type { IBackoff } from 'cockatiel';
import { ExponentialBackoff, noJitterGenerator } from 'cockatiel';
import type { Logger } from '../logger.js';
import { errorText } from '../logger.js';
import type { SlimMeta } from './slim-pod.js';

/** An object an informer can hold: anything with name, namespace and resourceVersion. */
export interface Slim {
  readonly metadata: SlimMeta;
}

/** One page of a list: items (any shape: they are reduced) and the list's metadata. */
export interface ListPage {
  readonly items: readonly unknown[];
  readonly metadata?: { readonly resourceVersion?: string; readonly _continue?: string };
}

/** Options of {@link startSlimInformer}. */
export interface SlimInformerOptions<T extends Slim> {
  readonly config: KubeConfig;
  /** The watch path, e.g. `/api/v1/pods`. */
  readonly path: string;
  /** Lists one page (`limit` items from `continueToken`). */
  readonly listPage: (continueToken: string | undefined) => Promise<ListPage>;
  /** Reduces an object to what the controller keeps. */
  readonly slim: (obj: unknown) => T;
  readonly logger: Logger;
  readonly name: string;
  /** Restart delay after a failed list or watch: doubled per failure, bounded (200 ms .. 10 s). */
  readonly retryBaseMs?: number;
  readonly retryMaxMs?: number;
}

/** A running informer over reduced objects. */
export interface SlimInformer<T extends Slim> {
  get(name: string, namespace?: string): T | undefined;
  list(): T[];
  /** Resolves once the first list is loaded and the watch is established. */
  readonly synced: Promise<void>;
  isSynced(): boolean;
  on(event: 'add' | 'update' | 'delete', cb: (obj: T) => void): void;
  stop(): Promise<void>;
}

/**
 * An informer (client-node's `ListWatch`: list, then watch from its resourceVersion, re-list on
 * 410 Gone) that keeps only a reduced copy of each object: the list is read in pages and each
 * object (listed or watched) is reduced before it is cached, so a full Pod is never held. A failed
 * list or watch is restarted with bounded backoff (client-node's ListWatch stops on one).
 */
export function startSlimInformer<T extends Slim>(
  options: SlimInformerOptions<T>,
): SlimInformer<T> {
  const lw = new ListWatch<T & KubernetesObject>(
    options.path,
    slimmingWatch(options),
    () => listAllPages(options),
    false,
  );
  let synced = false;
  let stopped = false;
  // The restart delays: cockatiel's exponential backoff (no jitter), a fresh chain after a success.
  const delays = new ExponentialBackoff({
    generator: noJitterGenerator,
    initialDelay: options.retryBaseMs ?? 200,
    maxDelay: options.retryMaxMs ?? 10_000,
  });
  let backoff: IBackoff<unknown> | undefined;
  let timer: NodeJS.Timeout | undefined;
  let resolveSynced!: () => void;
  const syncedPromise = new Promise<void>((r) => (resolveSynced = r));

  // client-node's ListWatch reports a failed list through its error callbacks and then resolves
  // start() anyway: an attempt counts as done only if no error was reported during it.
  let attempt = 0;
  let failedAttempt = -1;
  const start = (): void => {
    if (stopped) return;
    const mine = ++attempt;
    lw.start().then(
      () => {
        if (stopped || failedAttempt === mine || lw.latestResourceVersion() === '') return;
        backoff = undefined;
        if (!synced) {
          synced = true;
          resolveSynced();
        }
      },
      (e: unknown) => restart(e),
    );
  };
  // Failures arrive through ListWatch's callbacks, not as one promise a cockatiel retry could
  // run: cockatiel computes the delay, the restart timer stays ours (stop() clears it).
  const restart = (e: unknown): void => {
    if (stopped) return;
    failedAttempt = attempt;
    backoff = backoff?.next(undefined) ?? delays.next();
    const delay = backoff.duration;
    options.logger.log('warn', 'informer list/watch failed; restarting', {
      informer: options.name,
      retryInMs: delay,
      error: errorText(e),
    });
    clearTimeout(timer);
    timer = setTimeout(start, delay);
  };
  lw.on('error', (e?: unknown) => restart(e));
  start();
  return {
    get: (name, namespace) => lw.get(name, namespace),
    list: () => [...lw.list()],
    synced: syncedPromise,
    isSynced: () => synced,
    on: (event, cb) => lw.on(event, cb),
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await lw.stop();
    },
  };
}

/** A Watch that asks for bookmarks and reduces every watched object before ListWatch sees it. */
function slimmingWatch<T extends Slim>(options: SlimInformerOptions<T>): Watch {
  const watch = new Watch(options.config);
  return {
    // client-node's Watch.watch, whose signature is not ours to choose.
    // eslint-disable-next-line @typescript-eslint/max-params
    watch: (
      path: string,
      params: Record<string, string | number | boolean | undefined>,
      callback: (phase: string, obj: unknown, watchObj?: unknown) => void,
      done: (err: unknown) => void,
    ) =>
      watch.watch(
        path,
        { ...params, allowWatchBookmarks: true },
        (phase: string, obj: unknown, watchObj?: unknown) =>
          callback(
            phase,
            phase === 'ERROR' || phase === 'BOOKMARK' ? obj : options.slim(obj),
            watchObj,
          ),
        done,
      ),
  } as unknown as Watch;
}

/** Lists every page, reducing each object as it comes; the resourceVersion is the last page's. */
async function listAllPages<T extends Slim>(
  options: SlimInformerOptions<T>,
): Promise<{ items: T[]; metadata: { resourceVersion: string } }> {
  const items: T[] = [];
  let token: string | undefined;
  let resourceVersion = '';
  do {
    const page = await options.listPage(token);
    for (const item of page.items) items.push(options.slim(item));
    resourceVersion = page.metadata?.resourceVersion ?? resourceVersion;
    token = page.metadata?._continue || undefined;
  } while (token);
  return { items, metadata: { resourceVersion } };
}
