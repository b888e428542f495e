// netledger-device: parse argv, build adapters, call @netledger/device-daemon, map errors to exit codes.
import { readFile } from 'node:fs/promises';
import {
  DeviceError,
  checkRevision,
  createJsonLogger,
  parseNetworkBlock,
  readRevisionDir,
  renderNetworkArgs,
  runDeviceServer,
} from '@netledger/device-daemon';
import {
  LOG_LEVELS,
  LogFormatError,
  logFormatFromEnv,
  parseLogLevel,
  stopSignal,
} from '@netledger/log';
import type { CommandLine } from '@netledger/device-daemon/cli';
import {
  CLIENT_VERBS,
  DEFAULT_SOCKET,
  parseCommandLine,
  runClientVerb,
  USAGE,
  UsageError,
} from '@netledger/device-daemon/cli';
import { printValue, reportFailure } from './cli.js';

async function main(cli: CommandLine): Promise<number> {
  const { verb, values } = cli;
  if (values.help === true || verb === undefined) {
    printValue(USAGE + '\n');
    return verb === undefined && values.help !== true ? 2 : 0;
  }
  if (CLIENT_VERBS.has(verb)) return runClientVerb(cli, printValue);
  switch (verb) {
    case 'serve':
      return serve({
        state: values.state,
        dataDir: values['data-dir'],
        socketPath: values.socket ?? DEFAULT_SOCKET,
        level: values['log-level'],
      });
    case 'check': {
      if (values.state === undefined) throw new UsageError('check needs --state DIR');
      const report = checkRevision(await readRevisionDir(values.state));
      printValue(report);
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
      printValue(block === undefined ? {} : { network: block });
      return 0;
    }
    default:
      throw new UsageError(`unknown verb ${verb}`);
  }
}

async function serve(opts: {
  state: string | undefined;
  dataDir: string | undefined;
  socketPath: string;
  level: string | undefined;
}): Promise<number> {
  if (opts.dataDir === undefined) throw new UsageError('serve needs --data-dir DIR');
  const level = parseLogLevel(opts.level ?? 'info');
  if (level === undefined)
    throw new UsageError(
      `bad --log-level ${opts.level} (one of ${LOG_LEVELS.join(', ')}, or warn for warning)`,
    );
  let format;
  try {
    format = logFormatFromEnv(process.env, 'json');
  } catch (e) {
    if (e instanceof LogFormatError) throw new UsageError(e.message);
    throw e;
  }
  const clock = { now: () => Date.now() };
  const logger = createJsonLogger({
    format,
    write: (line) => process.stderr.write(line),
    clock,
    level,
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
  await stopSignal();
  await server.close();
  logger.log('info', 'stopped');
  return 0;
}

let json = false;
try {
  const cli = parseCommandLine(process.argv.slice(2));
  json = cli.json;
  process.exitCode = await main(cli);
} catch (e) {
  process.exitCode = reportFailure(e, json);
}
