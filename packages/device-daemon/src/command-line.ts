// netledger-device's command line, shared by the full executable and the start-up snapshot's
// client: parsing, usage, and what a failure prints with its exit code. No daemon code.
import { parseArgs } from 'node:util';
import { DeviceError, toErrorBody } from './device-error.js';

/** Usage text. */
export const USAGE = `usage:
  netledger-device serve --state DIR --data-dir DIR --socket PATH [--log-level debug|info|warn|error]
  netledger-device check --state DIR [--output text|json]
  netledger-device render-args --args ARGS.json [--name CONTAINER]
  netledger-device apply [--state DIR] [--force] [--socket PATH] [--output text|json]
  netledger-device start|stop|teardown NAME [--socket PATH] [--output text|json]
  netledger-device leases|pools|health|metrics [--socket PATH] [--output text|json]`;

/** Where the daemon listens unless `--socket` says otherwise. */
export const DEFAULT_SOCKET = '/run/netledger/device.sock';

/** A command line that cannot be run: exit 2 with the usage. */
export class UsageError extends Error {}

/** A parsed command line. */
export interface CommandLine {
  readonly verb: string | undefined;
  readonly target: string | undefined;
  readonly extra: readonly string[];
  readonly values: {
    readonly state?: string;
    readonly 'data-dir'?: string;
    readonly socket?: string;
    readonly args?: string;
    readonly name?: string;
    readonly 'log-level'?: string;
    readonly output?: string;
    readonly json?: boolean;
    readonly help?: boolean;
    readonly force?: boolean;
  };
  /** `--output json` (or its older spelling `--json`): results and errors as JSON on stdout. */
  readonly json: boolean;
}

/** Parses argv (without node and the script). Throws `UsageError` or parseArgs' own errors. */
export function parseCommandLine(argv: readonly string[]): CommandLine {
  const { values, positionals } = parseArgs({
    args: [...argv],
    allowPositionals: true,
    options: {
      state: { type: 'string' },
      'data-dir': { type: 'string' },
      socket: { type: 'string' },
      args: { type: 'string' },
      name: { type: 'string' },
      'log-level': { type: 'string' },
      output: { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
      force: { type: 'boolean' },
    },
  });
  if (values.output !== undefined && values.output !== 'text' && values.output !== 'json')
    throw new UsageError(`bad --output ${values.output} (text or json)`);
  const [verb, target, ...extra] = positionals;
  if (values.force === true && verb !== 'apply')
    throw new UsageError('--force is an option of apply only');
  return { verb, target, extra, values, json: values.output === 'json' || values.json === true };
}

/** Exit codes: 0 ok, 1 refused or invalid, 2 usage, 3 daemon unreachable or host failure. */
function exitCodeOf(e: DeviceError): number {
  return e.code === 'DaemonUnavailable' ||
    e.code === 'HostFailure' ||
    e.code === 'LeaseStoreCorrupt'
    ? 3
    : 1;
}

/** What a failure prints, and the exit code. */
export interface Failure {
  readonly exitCode: number;
  readonly stdout?: string;
  readonly stderr?: string;
}

/**
 * How a failure is reported: usage errors on stderr with the usage (exit 2); a `DeviceError` as
 * `{"error": {code, message, field?}}` on stdout with `--output json`, else as one
 * `netledger-device: CODE: message` line on stderr; anything else on stderr (exit 3).
 */
export function describeFailure(e: unknown, json: boolean): Failure {
  if (
    e instanceof UsageError ||
    (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
  ) {
    return { exitCode: 2, stderr: `netledger-device: ${(e as Error).message}\n${USAGE}\n` };
  }
  if (e instanceof DeviceError) {
    return json
      ? {
          exitCode: exitCodeOf(e),
          stdout: JSON.stringify({ error: toErrorBody(e) }, null, 2) + '\n',
        }
      : { exitCode: exitCodeOf(e), stderr: `netledger-device: ${e.code}: ${e.message}\n` };
  }
  return { exitCode: 3, stderr: `netledger-device: ${(e as Error).message ?? String(e)}\n` };
}
