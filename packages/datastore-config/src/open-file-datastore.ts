import { access } from 'node:fs/promises';
import type { Datastore } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import type { FileDatastoreConfig } from './datastore-config.js';
import { DatastoreConfigError } from './datastore-config-error.js';
import { fileStorePath } from './file-store-path.js';
import { fileStoreWarnings } from './file-store-warnings.js';
import type { StoreOpener } from './store-opener.js';

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/**
 * The file store: the config's path, else the user's default location, with the app's file options
 * and its `onFileWarning` told of failed cleanups.
 */
export const fileOpener: StoreOpener<FileDatastoreConfig> = {
  load: () => import('@netledger/datastore-file'),
  async open(config, options, call) {
    const { createFileDatastore } = await import('@netledger/datastore-file');
    const path = await fileStorePath(config, options);
    const onWarning = await fileStoreWarnings(options);
    const open = (readOnly: boolean): Promise<Datastore> =>
      createFileDatastore({
        ...options.file,
        path,
        ...(onWarning && { onWarning }),
        ...(readOnly && { readOnly: true }),
      });
    if (call.mayCreate === false && !(await exists(path))) {
      // A read-only open creates nothing and tells a store never made (DoesNotExist) from one
      // whose file was lost beside its previous generation (CorruptValue, naming repair).
      await open(true).then(
        (ds) => ds.close(),
        (e: unknown) => {
          if (!isIpamError(e, 'DoesNotExist')) throw e;
          throw new DatastoreConfigError(
            'NoDatastore',
            `no datastore at ${path} (set NETLEDGER_DATASTORE_PATH, or create a pool first)`,
          );
        },
      );
    }
    return open(call.readOnly === true);
  },
};
