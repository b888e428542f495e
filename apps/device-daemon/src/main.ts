// netledger-device: parse argv, build adapters, call @netledger/device-daemon, map errors to exit codes.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import {
  DeviceError,
  checkRevision,
  createDeviceClient,
  createJsonLogger,
  parseNetworkBlock,
  readRevisionDir,
  renderNetworkArgs,
  runDeviceServer,
} from '@netledger/device-daemon';
import type { LogLevel } from '@netledger/device-daemon';

const USAGE = `usage:
  netledger-device serve --state DIR --data-dir DIR --socket PATH [--log-level debug|info|warn|error]
  netledger-device check --state DIR
  netledger-device render-args --args ARGS.json [--name CONTAINER]
  netledger-device apply [--state DIR] [--socket PATH]
  netledger-device start|stop|teardown NAME [--socket PATH] [--json]
  netledger-device leases|pools|health|metrics [--socket PATH]`;

const DEFAULT_SOCKET = '/run/netledger/device.sock';

/** Exit codes: 0 ok, 1 refused or invalid, 2 usage, 3 daemon unreachable or host failure. */
function exitCodeOf(e: DeviceError): number {
  return e.code === 'DaemonUnavailable' ||
    e.code === 'HostFailure' ||
    e.code === 'LeaseStoreCorrupt'
    ? 3
    : 1;
}

class UsageError extends Error {}

function print(value: unknown): void {
  process.stdout.write(typeof value === 'string' ? value : JSON.stringify(value, null, 2) + '\n');
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      state: { type: 'string' },
      'data-dir': { type: 'string' },
      socket: { type: 'string' },
      args: { type: 'string' },
      name: { type: 'string' },
      'log-level': { type: 'string' },
      json: { type: 'boolean' },
      help: { type: 'boolean' },
    },
  });
  const [verb, target, ...extra] = positionals;
  if (values.help === true || verb === undefined) {
    print(USAGE + '\n');
    return verb === undefined && values.help !== true ? 2 : 0;
  }
  const socketPath = values.socket ?? DEFAULT_SOCKET;
  const needName = (): string => {
    if (target === undefined || extra.length > 0)
      throw new UsageError(`${verb} takes exactly one container name`);
    return target;
  };
  switch (verb) {
    case 'serve':
      return serve({
        state: values.state,
        dataDir: values['data-dir'],
        socketPath,
        level: values['log-level'],
      });
    case 'check': {
      if (values.state === undefined) throw new UsageError('check needs --state DIR');
      const report = checkRevision(await readRevisionDir(values.state));
      print(report);
      return report.ok ? 0 : 1;
    }
    case 'render-args': {
      if (values.args === undefined) throw new UsageError('render-args needs --args FILE');
      const name = values.name ?? 'container';
      let args: unknown;
      try {
        args = JSON.parse(await readFile(values.args, 'utf8'));
      } catch (e) {
        throw new DeviceError(
          'InvalidTemplateArgs',
          `cannot read ${values.args}: ${(e as Error).message}`,
        );
      }
      if (typeof args !== 'object' || args === null || Array.isArray(args)) {
        throw new DeviceError('InvalidTemplateArgs', `${values.args} must hold a JSON object`);
      }
      const block = renderNetworkArgs(args as Record<string, unknown>, { container: name });
      if (block !== undefined) parseNetworkBlock(block, { container: name });
      print(block === undefined ? {} : { network: block });
      return 0;
    }
    default:
      return client(verb, {
        socketPath,
        name: needName,
        state: values.state,
        json: values.json === true,
      });
  }
}

async function client(
  verb: string,
  opts: { socketPath: string; name: () => string; state: string | undefined; json: boolean },
): Promise<number> {
  const c = createDeviceClient({ socketPath: opts.socketPath });
  switch (verb) {
    case 'apply':
      print(await c.apply(opts.state));
      return 0;
    case 'start': {
      const r = await c.start(opts.name());
      print(opts.json ? r : r.lxc);
      return 0;
    }
    case 'stop':
      print(await c.stop(opts.name()));
      return 0;
    case 'teardown':
      print(await c.teardown(opts.name()));
      return 0;
    case 'leases':
      print(await c.leases());
      return 0;
    case 'pools':
      print(await c.pools());
      return 0;
    case 'health':
      print(await c.health());
      return 0;
    case 'metrics':
      print(await c.metrics());
      return 0;
    default:
      throw new UsageError(`unknown verb ${verb}`);
  }
}

const LEVELS: readonly string[] = ['debug', 'info', 'warn', 'error'];

async function serve(opts: {
  state: string | undefined;
  dataDir: string | undefined;
  socketPath: string;
  level: string | undefined;
}): Promise<number> {
  if (opts.dataDir === undefined) throw new UsageError('serve needs --data-dir DIR');
  if (opts.level !== undefined && !LEVELS.includes(opts.level))
    throw new UsageError(`bad --log-level ${opts.level}`);
  const clock = { now: () => Date.now() };
  const logger = createJsonLogger({
    write: (line) => process.stderr.write(line),
    clock,
    level: (opts.level ?? 'info') as LogLevel,
  });
  const server = await runDeviceServer({
    stateDir: opts.state,
    dataDir: opts.dataDir,
    socketPath: opts.socketPath,
    logger,
    clock,
    path: process.env['PATH'] ?? '/usr/sbin:/usr/bin:/sbin:/bin',
    procRoot: '/proc',
    memory: () => process.memoryUsage().rss,
  });
  await new Promise<void>((resolve) => {
    const stop = (): void => resolve();
    process.once('SIGTERM', stop);
    process.once('SIGINT', stop);
  });
  await server.close();
  logger.log('info', 'stopped');
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (
      e instanceof UsageError ||
      (e as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true
    ) {
      process.stderr.write(`netledger-device: ${(e as Error).message}\n${USAGE}\n`);
      process.exitCode = 2;
    } else if (e instanceof DeviceError) {
      process.stderr.write(`netledger-device: ${e.code}: ${e.message}\n`);
      process.exitCode = exitCodeOf(e);
    } else {
      process.stderr.write(`netledger-device: ${(e as Error).message ?? String(e)}\n`);
      process.exitCode = 3;
    }
  },
);
