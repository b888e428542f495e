// netledger-ipam's process: reads CNI_* and stdin, opens the configured datastore with the plugin's
// opener (open-datastore.ts), runs the plugin from @netledger/cni, prints its result or error JSON
// and exits 0 or 1.
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import {
  CniError,
  CniErrorCode,
  askAgent,
  createLogger,
  formatError,
  parseNetConf,
  printJson,
  runCniPlugin,
} from '@netledger/cni';
import type { IpamConf, Logger, PluginOutput } from '@netledger/cni';
import {
  AGENT_TRIED_ENV,
  ANSWERED_STATUS_OFFSET,
  launcherPidOf,
  runInstall,
  watchLauncher,
} from '@netledger/cni/install';
import { createPluginOpener } from './open-datastore.js';
import { SNAPSHOT_FLAGS } from './snapshot-flags.js';
import { writeFd } from '@netledger/write-fd';

const ABOUT = 'netledger-ipam: netledger CNI IPAM plugin (calico-ipam compatible)';

const print = (text: string): void => writeFd(1, text, (rest) => process.stdout.write(rest));
const printErr = (text: string): void => writeFd(2, text, (rest) => process.stderr.write(rest));

/** Logs go to stderr (stdout carries the result) and, when configured, to `log_file_path`. */
function loggerFor(ipam: IpamConf): Logger {
  const file = ipam.logFilePath;
  if (file !== undefined) mkdirSync(dirname(file), { recursive: true });
  return createLogger({
    level: ipam.logLevel,
    write: (line) => {
      printErr(line);
      if (file !== undefined) appendFileSync(file, line);
    },
  });
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    if (
      (e as NodeJS.ErrnoException).code === 'EAGAIN' ||
      (e as NodeJS.ErrnoException).code === 'EOF'
    )
      return '';
    throw e;
  }
}

/** The commands the node agent serves. */
const AGENT_COMMANDS = new Set(['ADD', 'DEL', 'CHECK', 'GC', 'STATUS']);

/**
 * The node agent's answer to this invocation, or undefined when the plugin must run it itself:
 * not a command the agent serves, a config the plugin would refuse (it then says why), no socket
 * at `agent_socket` (the default when the config names none), the socket the launcher's fast
 * client already tried, or an agent that could not serve it (askAgent's fallbacks: no connection
 * within `agent_connect_timeout`, ...). A request sent that got no answer within
 * `agent_answer_timeout` fails "try again later" (11): the agent may still be running it.
 */
async function agentAnswer(command: string, stdin: string): Promise<PluginOutput | undefined> {
  if (!AGENT_COMMANDS.has(command)) return undefined;
  let ipam: IpamConf;
  let cniVersion: string;
  try {
    ({ ipam, cniVersion } = parseNetConf(stdin, process.env));
  } catch {
    return undefined;
  }
  const socket = ipam.agentSocket;
  if (socket === process.env[AGENT_TRIED_ENV] || !existsSync(socket)) return undefined;
  const env = Object.create(null) as Record<string, string>;
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  const reply = await askAgent({
    socketPath: socket,
    request: { env, stdin },
    client: 'netledger-ipam-node',
    connectTimeoutMs: ipam.agentTimeouts.connectMs,
    answerTimeoutMs: ipam.agentTimeouts.answerMs,
  });
  switch (reply.kind) {
    case 'answer':
      return reply.output;
    case 'fallback':
      return undefined;
    case 'unanswered': {
      const error = new CniError(CniErrorCode.TryAgainLater, `${reply.reason}: try again later`);
      return { stdout: printJson(formatError(error, cniVersion)), stderr: '', exitCode: 1 };
    }
  }
}

async function main(selfDir: string | undefined): Promise<number> {
  if (process.argv[2] === 'install') {
    return runInstall(process.argv.slice(3), {
      ...(selfDir !== undefined && { selfDir }),
      execArgv: process.execArgv,
      node: process.execPath,
      snapshotFlags: SNAPSHOT_FLAGS,
      cwd: process.cwd(),
      print,
      printErr,
    });
  }
  if (process.argv.includes('-v') || process.argv.includes('--version')) {
    print(`${ABOUT}\n`);
    return 0;
  }
  const command = process.env['CNI_COMMAND'] ?? '';
  const stdin = command === '' || command === 'VERSION' ? '' : readStdin();
  const answered = await agentAnswer(command, stdin);
  if (answered) {
    print(answered.stdout);
    printErr(answered.stderr);
    return answered.exitCode;
  }
  const opener = createPluginOpener();
  const out = await runCniPlugin(
    { env: process.env, stdin },
    {
      openDatastore: (conf) => opener.open(conf),
      preloadDatastore: opener.preload,
      // Only a kubernetes store gets here; the module is then already compiled (build.mjs).
      kubeApi: async (datastore) =>
        (await import('@netledger/datastore-k8s')).kubeObjectReaderOf(datastore),
      createLogger: loggerFor,
      readFile: (path) => readFile(path, 'utf8').catch(() => undefined),
      osHostname: hostname,
      about: ABOUT,
    },
  );
  print(out.stdout);
  printErr(out.stderr);
  return out.exitCode;
}

/**
 * Runs one plugin invocation from this process's argv, environment and stdin, then exits (0 or 1,
 * with the CNI error JSON on stdout for anything unexpected), or `netledger-ipam install ...`.
 * Called by the plain entry (`main.ts`, with its module directory, which holds the files to install)
 * and by the start-up snapshot's main function (`snapshot-main.ts`). Started by the installed
 * launcher, a failure status is offset by 100 (the launcher's sign that the plugin answered) and
 * the process exits when the launcher is killed.
 */
export function runMain(opts: { selfDir?: string } = {}): void {
  const launcher = launcherPidOf(process.env);
  if (launcher !== undefined) {
    watchLauncher(launcher, () => {
      printErr(`netledger-ipam: its launcher (pid ${launcher}) is gone: stopping\n`);
      process.exit(1);
    });
  }
  const exit = (code: number): never =>
    process.exit(code === 0 || launcher === undefined ? code : ANSWERED_STATUS_OFFSET + code);
  main(opts.selfDir).then(exit, (e: unknown) => {
    // runCniPlugin never throws; this is the last line of defence against a bare stack trace.
    const msg = e instanceof Error ? e.message : String(e);
    print(printJson(formatError(new CniError(CniErrorCode.Internal, msg))));
    exit(1);
  });
}
