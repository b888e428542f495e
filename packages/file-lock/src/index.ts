export { createFileLock } from './file-lock.js';
export type { FileLock } from './file-lock.js';
export { FileLockError } from './file-lock-error.js';
export { blockingLockFs, threadPoolLockFs } from './lock-fs.js';
export type { LockFs } from './lock-fs.js';
export { formatLockHolder } from './lock-holder.js';
export { currentLockHolder } from './process-probe.js';
export { formatFileWarning, safeWarner } from './file-warning.js';
export type { FileWarning, OnFileWarning } from './file-warning.js';
