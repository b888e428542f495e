import { existsSync } from 'node:fs';
import { dirname } from 'node:path';
import { createDatastoreOpener } from '@netledger/datastore-config';
import type { DatastoreConfig } from '@netledger/datastore-config';
import { describe, expect, it } from 'vitest';
import { warmUpPlugin } from './warm-up.js';

/** A real opener that records the stores it opens and whether each was closed. */
function recordingOpener() {
  const opener = createDatastoreOpener({
    user: () => ({ uid: 1000, home: '/nonexistent' }),
    etcd: { transport: 'http', loadGrpc: () => Promise.reject(new Error('no gRPC')) },
  });
  const opened: { config: DatastoreConfig; closed: boolean }[] = [];
  return {
    opened,
    preload: opener.preload,
    open: async (config: DatastoreConfig) => {
      const ds = await opener.open(config);
      const entry = { config, closed: false };
      opened.push(entry);
      const close = ds.close.bind(ds);
      return Object.assign(ds, {
        close: async () => {
          entry.closed = true;
          await close();
        },
      });
    },
  };
}

describe('warmUpPlugin', () => {
  it('runs ADD and DEL on a throwaway file store through the opener, then removes it', async () => {
    const opener = recordingOpener();
    await warmUpPlugin(opener);
    // The seed, then ADD and DEL: each open closed, all on one file in one temporary directory.
    expect(opener.opened.map((o) => o.closed)).toEqual([true, true, true]);
    const paths = new Set(
      opener.opened.map((o) => (o.config.type === 'file' ? o.config.path : '')),
    );
    expect(paths.size).toBe(1);
    const [path] = paths;
    expect(path).toMatch(/netledger-warm-up-.*\/datastore\.json$/);
    expect(existsSync(dirname(path!))).toBe(false);
  });

  it('fails when a command fails, so the build does not ship a cold snapshot', async () => {
    const opener = recordingOpener();
    let opens = 0;
    // The seed opens; the ADD that follows cannot.
    const failing = {
      preload: opener.preload,
      open: (config: DatastoreConfig) =>
        opens++ === 0 ? opener.open(config) : Promise.reject(new Error('store is down')),
    };
    await expect(warmUpPlugin(failing)).rejects.toThrow(/warm-up ADD failed: .*store is down/s);
  });
});
