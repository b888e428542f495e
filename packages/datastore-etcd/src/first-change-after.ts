import type { EtcdKv, KvEvent, KvWatch } from './etcd-kv.js';

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
  kv: EtcdKv,
  path: string,
  options: { readonly after: string; readonly timeoutMs: number },
): Promise<KeyChange> {
  const { after, timeoutMs } = options;
  let watch: KvWatch | undefined;
  let timer: NodeJS.Timeout | undefined;
  try {
    return await new Promise<KeyChange>((resolve, reject) => {
      const from = (ev: KvEvent): KeyChange => {
        const type = ev.type === 'Delete' ? 'delete' : 'put';
        return {
          type,
          ...(type === 'put' && { value: ev.kv.value }),
          modRevision: ev.kv.mod_revision,
          createRevision: ev.kv.create_revision,
        };
      };
      watch = kv.watch(
        { key: Buffer.from(path), start_revision: String(BigInt(after) + 1n) },
        {
          onResponse: (res) => {
            const first = res.events[0];
            if (first) resolve(from(first));
          },
          onDisconnected: reject,
          onCanceled: reject,
        },
      );
      timer = setTimeout(
        () => reject(new Error(`timed out reading the history of ${path}`)),
        timeoutMs,
      );
    });
  } finally {
    clearTimeout(timer);
    watch?.cancel();
  }
}
