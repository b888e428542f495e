export {
  DEFAULT_HISTORY_LIMIT,
  DEFAULT_LOCK_TIMEOUT_MS,
  DEFAULT_WATCH_INTERVAL_MS,
  createFileDatastore,
} from './file-datastore.js';
export type { FileDatastoreOptions } from './file-datastore.js';
export { formatFileWarning } from '@netledger/file-lock';
export type { FileWarning, OnFileWarning } from '@netledger/file-lock';
export { SYSTEM_DATASTORE_PATH, defaultDatastorePath } from './default-datastore-path.js';
export type { DatastorePathEnv } from './default-datastore-path.js';
export { STORE_FORMAT } from './store-snapshot.js';
export { repairFileDatastore } from './repair-file-datastore.js';
export type { RepairFileDatastoreOptions, RepairReport } from './repair-file-datastore.js';
export type { LostKey, RepairMode } from './repair-plan.js';
