import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { IpamConf } from '../net-conf.js';

/**
 * Appends a log line of a request the agent answered to the request's `log_file_path`, as the
 * plugin itself does; a line that cannot be written is dropped (the plugin's own run would fail
 * to write it the same way, and the answer does not depend on it).
 */
export function appendRequestLog(ipam: IpamConf, line: string): void {
  if (ipam.logFilePath === undefined) return;
  try {
    mkdirSync(dirname(ipam.logFilePath), { recursive: true });
    appendFileSync(ipam.logFilePath, line);
  } catch {
    // Dropped, as documented above.
  }
}
