import type { RepairReport } from '@netledger/datastore-file';
import type { DatastoreConfig } from './datastore-config.js';
import { DatastoreConfigError } from './datastore-config-error.js';
import { fileStorePath } from './file-store-path.js';
import { fileStoreWarnings } from './file-store-warnings.js';
import type { DatastoreOpenerOptions, RepairOptions } from './store-opener.js';

/**
 * Repairs the store `config` names when it is a file store (datastore-file's
 * `repairFileDatastore` at the path the opener would open, the app's `onFileWarning` told of
 * failed cleanups); any other store is refused, `Unsupported`, with nothing touched (etcd and
 * Kubernetes are restored from their own backups). The store's refusals (`IpamError`: not a
 * store, a symbolic link, the lock held) pass through.
 */
export async function repairDatastore(
  config: DatastoreConfig,
  options: DatastoreOpenerOptions,
  call: RepairOptions,
): Promise<RepairReport> {
  if (config.type !== 'file') {
    throw new DatastoreConfigError(
      'Unsupported',
      `repair works on the file store; this one is ${config.type} (restore it from its own backups)`,
    );
  }
  const { repairFileDatastore } = await import('@netledger/datastore-file');
  const onWarning = await fileStoreWarnings(options);
  return repairFileDatastore({
    path: await fileStorePath(config, options),
    ...(call.mode !== undefined && { mode: call.mode }),
    ...(call.dryRun !== undefined && { dryRun: call.dryRun }),
    ...(onWarning && { onWarning }),
  });
}
