import type { FileDatastoreConfig } from './datastore-config.js';
import type { DatastoreOpenerOptions } from './store-opener.js';

/**
 * The store file a file config names: its own path, else the opener's user's default
 * (datastore-file's `defaultDatastorePath`; `@netledger/datastore-file` is imported on first use).
 * The user is asked only when the config names no path.
 */
export async function fileStorePath(
  config: FileDatastoreConfig,
  options: DatastoreOpenerOptions,
): Promise<string> {
  if (config.path !== undefined) return config.path;
  const { defaultDatastorePath } = await import('@netledger/datastore-file');
  const { uid, home, xdgStateHome } = options.user();
  return defaultDatastorePath({ XDG_STATE_HOME: xdgStateHome }, uid, home);
}
