// The benches' daemon: `serve` in a network namespace of its own (`unshare --net --map-root-user`:
// real bridges and nft, nothing on the host, gone when it exits), without root.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';

/**
 * Runs `argv` (an executable and its arguments, ending in `serve ...`) under unshare; resolves once
 * it logs `listening`, rejects with its log if it exits first. unshare execs it, so the child's
 * pid is the daemon's.
 */
export function startUnsharedDaemon(argv: readonly string[]): Promise<ChildProcess> {
  const child = spawn('unshare', ['--net', '--map-root-user', ...argv], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let log = '';
  return new Promise((resolve, reject) => {
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      log += d;
      if (log.includes('"msg":"listening"')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`daemon exited ${code}: ${log}`)));
  });
}
