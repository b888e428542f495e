import { createRotatingFile } from '@netledger/log';
import type { RotatingFile } from '@netledger/log';
import type { LogFileConf } from './net-conf.js';

/** calico-ipam's megabyte (lumberjack's): 1,048,576 bytes. */
const MB = 1024 * 1024;
const DAY_MS = 86_400_000;

/**
 * The plugin's log file with its rotation (`log_file_path`, `log_file_max_size`,
 * `log_file_max_age`, `log_file_max_count`), shared safely with every other process writing it
 * (@netledger/log's rotating file). Creates its directory; throws when it cannot.
 */
export function openLogFile(conf: LogFileConf): RotatingFile {
  return createRotatingFile({
    path: conf.path,
    maxSizeBytes: conf.maxSizeMb * MB,
    maxAgeMs: conf.maxAgeDays * DAY_MS,
    maxCount: conf.maxCount,
  });
}
