import { access } from 'node:fs/promises';
import type { Datastore } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import type { FileDatastoreConfig } from './datastore-config.js';
import { DatastoreConfigError } from './datastore-config-error.js';
import type { StoreOpener } from './store-opener.js';

const exists = (path: string): Promise<boolean> =>
  access(path).then(
    () => true,
    () => false,
  );

/** The file store: the config's path, else the user's default location. */
export const fileOpener: StoreOpener<FileDatastoreConfig> = {
  load: () => import('@netledger/datastore-file'),
  async open(config, options, call) {
    const { createFileDatastore, defaultDatastorePath } = await import('@netledger/datastore-file');
    const defaultPath = (): string => {
      const { uid, home, xdgStateHome } = options.user();
      return defaultDatastorePath({ XDG_STATE_HOME: xdgStateHome }, uid, home);
    };
    const path = config.path ?? defaultPath();
    const open = (readOnly: boolean): Promise<Datastore> =>
      createFileDatastore({ ...options.file, path, ...(readOnly && { readOnly: true }) });
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
