// netledger-node: hand argv, the environment, the streams, the stop signals, the store opener's
// options and the host's name sources to runAgent, and exit with its status.
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { createLogger } from '@netledger/cni';
import { daemonOpenerOptions } from '@netledger/datastore-config';
import { parseLogFormat, stopSignal } from '@netledger/log';
import { AGENT_FILE_STORE_OPTIONS } from './agent-store-options.js';
import { readNodenameFile } from './read-nodename-file.js';
import { runAgent } from './run-agent.js';

const stderr = (t: string): void => void process.stderr.write(t);
/**
 * The store's failed cleanups and an unreadable nodename_file, in the format of runAgent's logger
 * (warnings and errors whatever --log-level says).
 */
const log = createLogger({
  level: 'warning',
  format: parseLogFormat(process.env.NETLEDGER_LOG_FORMAT ?? '') ?? 'text',
  write: stderr,
});

const code = await runAgent({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (t) => void process.stdout.write(t),
  stderr,
  stopSignal: stopSignal(),
  version: '0.1.0',
  // The static client beside this executable (bin/, an image's directory), else where a node's
  // CNI plugins live.
  defaultLockHelpers: [
    ...(process.argv[1] ? [join(dirname(process.argv[1]), 'netledger-ipam')] : []),
    '/opt/cni/bin/netledger-ipam',
  ],
  // etcd through its HTTP gateway, as the plugin reaches it; the gRPC client is not built in.
  opener: daemonOpenerOptions('netledger-node', {
    file: AGENT_FILE_STORE_OPTIONS,
    onFileWarning: (line) => log.warning(line),
  }),
  readFile: (path) => readNodenameFile(path, (m) => log.error(m)),
  osHostname: hostname,
});
process.exit(code);
