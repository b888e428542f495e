import type { Etcd3, IKeyValue } from 'etcd3';

/** The first write to a key after a revision. */
export interface KeyChange {
  readonly type: 'put' | 'delete';
  /** The value written (puts only). */
  readonly value?: Buffer;
  readonly modRevision: string;
  readonly createRevision: string;
}

/**
 * The first change to `path` after revision `after`, read from etcd's history with a watch. Only
 * call it when the key is known to have changed since `after`, so the answer comes from history at
 * once. Rejects on a compacted revision, a lost connection, or after `timeoutMs`.
 */
export async function firstChangeAfter(
  client: Etcd3,
  path: string,
  after: string,
  timeoutMs: number,
): Promise<KeyChange> {
  // watcher() attaches listeners before any response can arrive; create() would race the first event.
  const watcher = client
    .watch()
    .key(path)
    .startRevision(String(BigInt(after) + 1n))
    .watcher();
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<KeyChange>((resolve, reject) => {
      const from = (type: KeyChange['type'], kv: IKeyValue): KeyChange => ({
        type,
        ...(type === 'put' && { value: kv.value }),
        modRevision: kv.mod_revision,
        createRevision: kv.create_revision,
      });
      watcher.on('put', (kv) => resolve(from('put', kv)));
      watcher.on('delete', (kv) => resolve(from('delete', kv)));
      watcher.on('error', reject);
      watcher.on('disconnected', reject);
      timer = setTimeout(
        () => reject(new Error(`timed out reading the history of ${path}`)),
        timeoutMs,
      );
    });
  } finally {
    clearTimeout(timer);
    void watcher.cancel().catch(() => undefined);
  }
}
