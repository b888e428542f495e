import { isAbsolute, join } from 'node:path/posix';

/** Where root keeps the store (the CNI plugin and the daemons run as root). */
export const SYSTEM_DATASTORE_PATH = '/var/lib/netledger/datastore.json';

/** Environment variables {@link defaultDatastorePath} reads. */
export interface DatastorePathEnv {
  readonly NETLEDGER_DATASTORE_PATH?: string | undefined;
  readonly XDG_STATE_HOME?: string | undefined;
}

/**
 * The store path when none is configured: `NETLEDGER_DATASTORE_PATH` if set and non-empty, else
 * {@link SYSTEM_DATASTORE_PATH} for uid 0, else `$XDG_STATE_HOME/netledger/datastore.json` (an
 * absolute `XDG_STATE_HOME` only, as the XDG spec says), else
 * `<home>/.local/state/netledger/datastore.json`. Pure: the caller passes `process.env`,
 * `process.getuid?.()` and `os.homedir()`.
 */
export function defaultDatastorePath(
  env: DatastorePathEnv,
  uid: number | undefined,
  home: string,
): string {
  if (env.NETLEDGER_DATASTORE_PATH) return env.NETLEDGER_DATASTORE_PATH;
  if (uid === 0) return SYSTEM_DATASTORE_PATH;
  const state = env.XDG_STATE_HOME;
  if (state && isAbsolute(state)) return join(state, 'netledger', 'datastore.json');
  return join(home, '.local', 'state', 'netledger', 'datastore.json');
}
