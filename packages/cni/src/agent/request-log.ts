import { openLogFile } from '../log-file.js';
import type { IpamConf } from '../net-conf.js';

/**
 * Appends a log line of a request the agent answered to the request's `log_file_path`, rotated as
 * the plugin rotates it (the agent and plugin processes share the file safely); a line that
 * cannot be written is dropped (the plugin's own run would fail to write it the same way, and
 * the answer does not depend on it).
 */
export function appendRequestLog(ipam: IpamConf, line: string): void {
  if (ipam.logFile === undefined) return;
  try {
    openLogFile(ipam.logFile).write(line);
  } catch {
    // Dropped, as documented above.
  }
}
