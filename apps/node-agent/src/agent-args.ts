import { isAbsolute } from 'node:path';
import { DEFAULT_AGENT_SOCKET } from '@netledger/cni';
import type { LogLevel } from '@netledger/cni';

/** What `netledger-node` was asked to do. */
export type AgentArgs =
  | { readonly verb: 'help' | 'version' }
  | {
      readonly verb: 'run';
      readonly nodename: string;
      readonly socket: string;
      readonly logLevel: LogLevel;
      /** The static client whose lock helper holds the host lock (`--lock-helper`). */
      readonly lockHelper?: string;
    }
  | { readonly verb: 'status'; readonly socket: string };

/** A usage error (exit status 2). */
export class AgentUsageError extends Error {
  override readonly name = 'AgentUsageError';
}

/** The usage text. */
export const USAGE = `Usage: netledger-node --nodename NAME [--socket PATH] [--log-level LEVEL] [--lock-helper PATH]
       netledger-node status [--socket PATH]

Runs the node agent: serves netledger-ipam's ADD, DEL, CHECK, GC and STATUS for node NAME on the
unix socket PATH (default ${DEFAULT_AGENT_SOCKET}), mode 0600, from a watch-fed view of the
store. A missing directory of PATH is created 0700; an existing one is never changed, and is
refused when other users could replace the socket in it (writable by them without the sticky
bit). The store is read from the environment, as netledgerctl's: DATASTORE_TYPE (file, etcdv3,
kubernetes), NETLEDGER_DATASTORE_PATH, ETCD_ENDPOINTS, ETCD_CA_CERT_FILE, ETCD_CERT_FILE,
ETCD_KEY_FILE, ETCD_USERNAME, ETCD_PASSWORD, KUBECONFIG.
SIGTERM or SIGINT: stop taking requests, finish those in flight, exit 0.

"status" asks a running agent how it is (JSON on stdout): exit 0 when it serves from a synced
view, 1 when it answers but is not synced, 3 when nothing answers on PATH, 4 when this user may
not use PATH (permission denied: only the agent's user, root, may).

  --nodename NAME     the node this agent serves (requests for another node are sent back)
  --socket PATH       the unix socket (absolute)
  --log-level LEVEL   debug, info (default), warning, error
  --lock-helper PATH  the static client netledger-ipam, which holds the host lock (flock on each
                      request's ipam_lock_file, as calico-ipam takes it); default: the one beside
                      this executable, else /opt/cni/bin/netledger-ipam
`;

const NODENAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/i;
const LEVELS: readonly LogLevel[] = ['debug', 'info', 'warning', 'error'];

/**
 * Parses `netledger-node`'s arguments (`--flag VALUE` or `--flag=VALUE`). Throws
 * {@link AgentUsageError} for an unknown flag, a missing or repeated value, a missing
 * `--nodename` (when running), a node name that is not a DNS-style name, a relative socket path or
 * an unknown log level.
 */
export function parseAgentArgs(argv: readonly string[]): AgentArgs {
  if (argv.includes('--help') || argv.includes('-h')) return { verb: 'help' };
  if (argv.includes('--version')) return { verb: 'version' };
  const status = argv[0] === 'status';
  const values = new Map<string, string>();
  const allowed = status
    ? ['--socket']
    : ['--nodename', '--socket', '--log-level', '--lock-helper'];
  for (let i = status ? 1 : 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const eq = arg.indexOf('=');
    const flag = eq > 0 ? arg.slice(0, eq) : arg;
    if (!allowed.includes(flag))
      throw new AgentUsageError(`unknown argument ${JSON.stringify(arg)}`);
    const value = eq > 0 ? arg.slice(eq + 1) : argv[++i];
    if (value === undefined || value === '') throw new AgentUsageError(`${flag} needs a value`);
    if (values.has(flag)) throw new AgentUsageError(`${flag} is given twice`);
    values.set(flag, value);
  }
  const socket = values.get('--socket') ?? DEFAULT_AGENT_SOCKET;
  if (!isAbsolute(socket)) throw new AgentUsageError(`--socket ${socket}: not an absolute path`);
  if (status) return { verb: 'status', socket };
  const nodename = values.get('--nodename');
  if (nodename === undefined) throw new AgentUsageError('--nodename is required');
  if (!NODENAME.test(nodename) || nodename.length > 253) {
    throw new AgentUsageError(`--nodename ${nodename}: not a node name`);
  }
  const level = (values.get('--log-level') ?? 'info').toLowerCase();
  if (!(LEVELS as readonly string[]).includes(level)) {
    throw new AgentUsageError(`--log-level ${level}: not one of ${LEVELS.join(', ')}`);
  }
  const lockHelper = values.get('--lock-helper');
  if (lockHelper !== undefined && !isAbsolute(lockHelper)) {
    throw new AgentUsageError(`--lock-helper ${lockHelper}: not an absolute path`);
  }
  return {
    verb: 'run',
    nodename,
    socket,
    logLevel: level as LogLevel,
    ...(lockHelper !== undefined && { lockHelper }),
  };
}
