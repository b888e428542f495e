export { createFileLock } from './file-lock.js';
export type { FileLock, FileLockOptions } from './file-lock.js';
export { FileLockError } from './file-lock-error.js';
export type { FileLockErrorCode, FileLockErrorOptions } from './file-lock-error.js';
export { blockingLockFs, threadPoolLockFs } from './lock-fs.js';
export type { LockFs } from './lock-fs.js';
export { formatLockHolder } from './lock-holder.js';
export type { LockHolder } from './lock-holder.js';
export { currentLockHolder } from './process-probe.js';
