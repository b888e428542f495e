import type { DaemonState } from './daemon-state.js';
import { DeviceError, toErrorBody } from './device-error.js';
import { parseRevision } from './revision.js';
import { encodeRevisionFile } from './revision-codec.js';

/**
 * Restores the persisted leases, pools and last good revision into `state`. A persisted revision
 * that no longer parses is logged and ignored; a corrupt lease file throws (`LeaseStoreCorrupt`).
 */
export async function restoreDaemonState(state: DaemonState): Promise<void> {
  const { logger, store, revisions } = state.deps;
  const persisted = await store.load();
  if (persisted !== undefined) {
    state.book = persisted.book;
    state.hostPools = persisted.pools;
    logger.log('info', 'restored leases', {
      leases: state.book.leases.size,
      pools: state.hostPools.size,
    });
  }
  const files = await revisions.load();
  if (files !== undefined) {
    try {
      const revision = parseRevision(files);
      state.current = { files, revision };
      state.savedRevisionText = encodeRevisionFile(files);
      logger.log('info', 'restored the last good revision', {
        pools: revision.pools.size,
        containers: revision.containers.size,
      });
    } catch (e) {
      if (!(e instanceof DeviceError)) throw e;
      logger.log('warn', 'the persisted last good revision no longer parses; ignoring it', {
        error: toErrorBody(e),
      });
    }
  }
  logger.log('info', 'IPAM subsystem initialized');
}
