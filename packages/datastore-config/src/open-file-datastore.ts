import { access } from 'node:fs/promises';
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
    if (call.mayCreate === false && !(await exists(path))) {
      throw new DatastoreConfigError(
        'NoDatastore',
        `no datastore at ${path} (set NETLEDGER_DATASTORE_PATH, or create a pool first)`,
      );
    }
    return createFileDatastore({ ...options.file, path, ...(call.readOnly && { readOnly: true }) });
  },
};
