// netledger-ipam's process: reads CNI_* and stdin, opens the configured datastore (the file store,
// or etcd through its HTTP/JSON gateway), runs the plugin from @netledger/cni, prints its result
// or error JSON and exits 0 or 1.
import { appendFileSync, mkdirSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir, hostname } from 'node:os';
import { dirname } from 'node:path';
import {
  CniError,
  CniErrorCode,
  createLogger,
  formatError,
  printJson,
  runCniPlugin,
} from '@netledger/cni';
import type { DatastoreConf, IpamConf, Logger } from '@netledger/cni';
import type { Datastore } from '@netledger/ipam-core';
import { isIpamError } from '@netledger/ipam-core';
import { loadGrpcChunk } from './load-grpc-chunk.js';
import { openEtcdDatastore } from './open-etcd.js';
import { writeFd } from './write-fd.js';

/** Past changes the file store keeps for watchers (datastore-file's default is 100). */
const FILE_HISTORY_LIMIT = 20;

const ABOUT = 'netledger-ipam: netledger CNI IPAM plugin (calico-ipam compatible)';

/** Compiles the gRPC adapter, when the config asks for it, before the host lock is taken. */
async function preloadDatastore(conf: DatastoreConf): Promise<void> {
  if (conf.type === 'etcdv3' && conf.transport === 'grpc') await loadGrpcChunk();
}

/** Opens the configured datastore as every invocation does (the start-up snapshot's warm-up too). */
export async function openDatastore(conf: DatastoreConf): Promise<Datastore> {
  switch (conf.type) {
    case 'file': {
      const { createFileDatastore, defaultDatastorePath } =
        await import('@netledger/datastore-file');
      const path = conf.path ?? defaultDatastorePath(process.env, process.getuid?.(), homedir());
      // Every write rewrites the whole file, history included, inside the host lock: a short
      // history keeps the file (and each ADD) small. The plugin never watches; other processes'
      // watches that fall further behind re-list (WatchExpired), as the Datastore contract says.
      // A one-shot process: blocking file calls skip a thread-pool round trip each.
      return createFileDatastore({ path, historyLimit: FILE_HISTORY_LIMIT, blockingIo: true });
    }
    case 'etcdv3': {
      try {
        return await openEtcdDatastore(conf);
      } catch (e) {
        // A bad endpoint URL or an unreadable TLS file is a config error, not an internal one.
        if (!isIpamError(e, 'InvalidArgument')) throw e;
        throw new CniError(CniErrorCode.InvalidNetworkConfig, e.message, { cause: e });
      }
    }
  }
}

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

async function main(): Promise<number> {
  if (process.argv.includes('-v') || process.argv.includes('--version')) {
    print(`${ABOUT}\n`);
    return 0;
  }
  const command = process.env['CNI_COMMAND'] ?? '';
  const stdin = command === '' || command === 'VERSION' ? '' : readStdin();
  const out = await runCniPlugin(
    { env: process.env, stdin },
    {
      openDatastore,
      preloadDatastore,
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
 * with the CNI error JSON on stdout for anything unexpected). Called by the plain entry
 * (`main.ts`) and by the start-up snapshot's main function (`snapshot-main.ts`).
 */
export function runMain(): void {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      // runCniPlugin never throws; this is the last line of defence against a bare stack trace.
      const msg = e instanceof Error ? e.message : String(e);
      print(printJson(formatError(new CniError(CniErrorCode.Internal, msg))));
      process.exit(1);
    },
  );
}
