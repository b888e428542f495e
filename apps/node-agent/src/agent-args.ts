import { isAbsolute } from 'node:path';
import { parseArgs } from 'node:util';
import { parseHostPort } from '@netledger/accounting';
import { DEFAULT_AGENT_SOCKET } from '@netledger/cni';
import type { LogLevel } from '@netledger/cni';
import { LOG_LEVELS, parseLogLevel } from '@netledger/log';

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
      /** Where to serve /metrics, /healthz and /readyz on TCP (`--metrics-listen`); off when absent. */
      readonly metricsListen?: { readonly host: string; readonly port: number };
    }
  | { readonly verb: 'status'; readonly socket: string };

/** A usage error (exit status 2). */
export class AgentUsageError extends Error {
  override readonly name = 'AgentUsageError';
}

/** The usage text. */
export const USAGE = `Usage: netledger-node --nodename NAME [--socket PATH] [--log-level LEVEL] [--lock-helper PATH]
                      [--metrics-listen HOST:PORT]
       netledger-node status [--socket PATH]

Runs the node agent: serves netledger-ipam's ADD, DEL, CHECK, GC and STATUS for node NAME on the
unix socket PATH (default ${DEFAULT_AGENT_SOCKET}), mode 0600, from a watch-fed view of the
store. A missing directory of PATH is created 0700; an existing one is never changed, and is
refused when other users could replace the socket in it (writable by them without the sticky
bit). The store is read from the environment, as netledgerctl's: DATASTORE_TYPE (file, etcdv3,
kubernetes), NETLEDGER_DATASTORE_PATH, ETCD_ENDPOINTS, ETCD_CA_CERT_FILE, ETCD_CERT_FILE,
ETCD_KEY_FILE, ETCD_USERNAME, ETCD_PASSWORD, KUBECONFIG.
Logs go to standard error as text lines, or JSON ones with NETLEDGER_LOG_FORMAT=json.
SIGTERM or SIGINT: stop taking requests, finish those in flight, exit 0.

"status" asks a running agent how it is (JSON on stdout): exit 0 when it serves from a synced
view, 1 when it answers but is not synced, 3 when nothing answers on PATH, 4 when this user may
not use PATH (permission denied: only the agent's user, root, may).

  --nodename NAME     the node this agent serves (requests for another node are sent back)
  --socket PATH       the unix socket (absolute)
  --log-level LEVEL   Calico's levels: trace, debug, info (default), warning, error, fatal, panic
  --metrics-listen HOST:PORT
                      also serve GET /metrics (Prometheus text), /healthz (liveness) and /readyz
                      (200 once the store view is synced) on TCP, e.g. 127.0.0.1:9099 or
                      [::1]:9099; off by default (the socket serves them to root)
  --lock-helper PATH  the static client netledger-ipam, which holds the host lock (flock on each
                      request's ipam_lock_file, as calico-ipam takes it); default: the one beside
                      this executable, else /opt/cni/bin/netledger-ipam
`;

const NODENAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/i;

const RUN_OPTIONS = {
  nodename: { type: 'string', multiple: true },
  socket: { type: 'string', multiple: true },
  'log-level': { type: 'string', multiple: true },
  'lock-helper': { type: 'string', multiple: true },
  'metrics-listen': { type: 'string', multiple: true },
} as const;
const STATUS_OPTIONS = { socket: RUN_OPTIONS.socket } as const;

/** The one value of each flag given; throws for a flag given twice or with an empty value. */
function single(values: Record<string, string[] | undefined>): Map<string, string> {
  const out = new Map<string, string>();
  for (const [flag, given] of Object.entries(values)) {
    if (given === undefined) continue;
    if (given.length > 1) throw new AgentUsageError(`--${flag} is given twice`);
    if (given[0] === '') throw new AgentUsageError(`--${flag} needs a value`);
    out.set(flag, given[0]!);
  }
  return out;
}

/** node:util parseArgs, its errors as usage errors in this command's words. */
function parseFlags(
  argv: readonly string[],
  options: typeof RUN_OPTIONS | typeof STATUS_OPTIONS,
): Map<string, string> {
  try {
    const { values } = parseArgs({
      args: [...argv],
      options,
      strict: true,
      allowPositionals: false,
    });
    return single(values as Record<string, string[] | undefined>);
  } catch (e) {
    if (e instanceof AgentUsageError) throw e;
    const err = e as NodeJS.ErrnoException;
    if (err.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
      const flag = /'(--[\w-]+)/.exec(err.message)?.[1] ?? 'an option';
      throw new AgentUsageError(`${flag} needs a value`);
    }
    // The first token that is no option of this verb, as the user wrote it.
    const { tokens } = parseArgs({ args: [...argv], options, strict: false, tokens: true });
    const bad = tokens.find((t) => t.kind !== 'option' || !Object.hasOwn(options, t.name));
    const arg =
      bad && (bad.kind === 'positional' ? bad.value : bad.kind === 'option' ? bad.rawName : '--');
    throw new AgentUsageError(`unknown argument ${JSON.stringify(arg ?? argv.join(' '))}`);
  }
}

/**
 * Parses `netledger-node`'s arguments (`--flag VALUE` or `--flag=VALUE`, with node:util's
 * parseArgs). Throws {@link AgentUsageError} for an unknown flag, a missing or repeated value, a
 * missing `--nodename` (when running), a node name that is not a DNS-style name, a relative
 * socket path, an unknown log level or a `--metrics-listen` that is not HOST:PORT.
 */
export function parseAgentArgs(argv: readonly string[]): AgentArgs {
  if (argv.includes('--help') || argv.includes('-h')) return { verb: 'help' };
  if (argv.includes('--version')) return { verb: 'version' };
  const status = argv[0] === 'status';
  const values = status ? parseFlags(argv.slice(1), STATUS_OPTIONS) : parseFlags(argv, RUN_OPTIONS);
  const socket = values.get('socket') ?? DEFAULT_AGENT_SOCKET;
  if (!isAbsolute(socket)) throw new AgentUsageError(`--socket ${socket}: not an absolute path`);
  if (status) return { verb: 'status', socket };
  const nodename = values.get('nodename');
  if (nodename === undefined) throw new AgentUsageError('--nodename is required');
  if (!NODENAME.test(nodename) || nodename.length > 253) {
    throw new AgentUsageError(`--nodename ${nodename}: not a node name`);
  }
  const levelText = values.get('log-level') ?? 'info';
  const level = parseLogLevel(levelText);
  if (level === undefined) {
    throw new AgentUsageError(
      `--log-level ${levelText}: not one of ${LOG_LEVELS.join(', ')} (or warn)`,
    );
  }
  const lockHelper = values.get('lock-helper');
  if (lockHelper !== undefined && !isAbsolute(lockHelper)) {
    throw new AgentUsageError(`--lock-helper ${lockHelper}: not an absolute path`);
  }
  const listenText = values.get('metrics-listen');
  const metricsListen = listenText === undefined ? undefined : parseHostPort(listenText);
  if (listenText !== undefined && metricsListen === undefined) {
    throw new AgentUsageError(
      `--metrics-listen ${listenText}: expected HOST:PORT (e.g. 127.0.0.1:9099 or [::1]:9099)`,
    );
  }
  return {
    verb: 'run',
    nodename,
    socket,
    logLevel: level,
    ...(lockHelper !== undefined && { lockHelper }),
    ...(metricsListen !== undefined && { metricsListen }),
  };
}
