// netledger-ipam's Node.js side: the fallback the static client runs when no node agent answers,
// and its verbs (install, install-cni, uninstall-cni: @netledger/cni/install). Reads CNI_* and
// stdin, opens the configured datastore with the plugin's opener (open-datastore.ts), takes the
// host lock through the client's lock helper, runs the plugin from @netledger/cni, prints its
// result or error JSON and exits 0 or 1.
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import {
  CniError,
  CniErrorCode,
  createFlockHostLock,
  createLogger,
  formatError,
  openLogFile,
  printJson,
  runCniPlugin,
} from '@netledger/cni';
import type { AcquireHostLock, IpamConf, Logger } from '@netledger/cni';
import {
  ANSWERED_STATUS_OFFSET,
  CLIENT_ENV,
  FALLBACK_REASON_ENV,
  runInstallVerb,
  staticClientBeside,
} from '@netledger/cni/install';
import { writeFd } from '@netledger/write-fd';
import { createPluginOpener } from './open-datastore.js';

const ABOUT = 'netledger-ipam: netledger CNI IPAM plugin (calico-ipam compatible)';

const print = (text: string): void => writeFd(1, text, (rest) => process.stdout.write(rest));
const printErr = (text: string): void => writeFd(2, text, (rest) => process.stderr.write(rest));

/**
 * Logs go to stderr (stdout carries the result) and, when configured, to `log_file_path`, rotated
 * as calico-ipam rotates it; the first line says why the node agent did not serve the request,
 * when the client said.
 */
function loggerFor(ipam: IpamConf): Logger {
  const file = ipam.logFile && openLogFile(ipam.logFile);
  const log = createLogger({
    level: ipam.logLevel,
    format: ipam.logFormat,
    write: (line) => {
      printErr(line);
      file?.write(line);
    },
  });
  const reason = process.env[FALLBACK_REASON_ENV];
  if (reason) log.debug(`serving the request here: the node agent did not (${reason})`);
  return log;
}

function readStdin(): string {
  try {
    return readFileSync(0, 'utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EAGAIN' || code === 'EOF') return '';
    throw e;
  }
}

/** Without the static client's lock helper, the host lock cannot be taken: said, and skipped. */
const unlocked: AcquireHostLock = async ({ path, log }) => {
  log.warning(`no static client to hold IPAM lock ${path} (flock): continuing without it`);
  return undefined;
};

async function main(bundleDir: string): Promise<number> {
  const installed = runInstallVerb(process.argv.slice(2), {
    bundleDir,
    env: process.env,
    node: process.execPath,
    cwd: process.cwd(),
    print,
    printErr,
  });
  if (installed !== undefined) return installed;
  if (process.argv.includes('-v') || process.argv.includes('--version')) {
    print(`${ABOUT}\n`);
    return 0;
  }
  const command = process.env['CNI_COMMAND'] ?? '';
  const stdin = command === '' || command === 'VERSION' ? '' : readStdin();
  const helper = process.env[CLIENT_ENV] || staticClientBeside(bundleDir);
  const hostLock = helper === undefined ? undefined : createFlockHostLock({ helper });
  const opener = createPluginOpener();
  try {
    const out = await runCniPlugin(
      { env: process.env, stdin },
      {
        // An opener per invocation, so the file store's failed cleanups reach this one's log.
        openDatastore: (conf, log) =>
          createPluginOpener({ onFileWarning: (line) => log.warning(line) }).open(conf),
        preloadDatastore: opener.preload,
        // Only a kubernetes store gets here; its chunk is then already loaded (build.mjs).
        kubeApi: opener.kubernetesReaderOf,
        createLogger: loggerFor,
        acquireLock: hostLock?.acquire ?? unlocked,
        // No file is no node name; another failure goes to runCniPlugin, which logs it.
        readFile: (path) =>
          readFile(path, 'utf8').catch((e: unknown) => {
            if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
            throw e;
          }),
        osHostname: hostname,
        about: ABOUT,
      },
    );
    print(out.stdout);
    printErr(out.stderr);
    return out.exitCode;
  } finally {
    await hostLock?.dispose();
  }
}

/**
 * Runs one plugin invocation from this process's argv, environment and stdin, then exits (0 or 1,
 * with the CNI error JSON on stdout for anything unexpected), or `netledger-ipam install ...`.
 * Started by the static client, a status it chose is offset by 100: the client's sign that the
 * plugin answered (any other status is Node's own).
 */
export function runMain(opts: { bundleDir: string }): void {
  const byClient = Boolean(process.env[CLIENT_ENV]);
  const exit = (code: number): never =>
    process.exit(code === 0 || !byClient ? code : ANSWERED_STATUS_OFFSET + code);
  main(opts.bundleDir).then(exit, (e: unknown) => {
    // runCniPlugin never throws; this is the last line of defence against a bare stack trace.
    const msg = e instanceof Error ? e.message : String(e);
    print(printJson(formatError(new CniError(CniErrorCode.Internal, msg))));
    exit(1);
  });
}
