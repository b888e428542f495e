import { writeFile } from 'node:fs/promises';
import { createDatastoreOpener } from '@netledger/datastore-config';
import { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';
import { readTextFile } from '../cli/read-bounded.js';
import { runCtl } from '../cli/run-ctl.js';
import type { CtlIo } from '../cli/command-spec.js';
import { testClock } from './seed.js';

/** The result of one in-process netledgerctl run. */
export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** A user whose home holds no store. */
const user = () => ({ uid: 1000, home: '/nonexistent-home' });

/** Runs netledgerctl in-process against the file store at `storePath`. */
export async function runCli(
  argv: readonly string[],
  options: {
    storePath?: string;
    env?: Record<string, string>;
    stdin?: string;
    io?: Partial<CtlIo>;
  } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  // netledgerctl's opener, as apps/ctl wires it, for that user: file warnings go to stderr.
  const opener = createDatastoreOpener({
    user,
    onFileWarning: (line) => void (stderr += `Warning: ${line}\n`),
    etcd: { transport: 'grpc', dialTimeoutMs: 5000, loadGrpc: loadEtcdGrpc },
  });
  const code = await runCtl({
    argv,
    env: {
      ...(options.storePath !== undefined && { NETLEDGER_DATASTORE_PATH: options.storePath }),
      ...options.env,
    },
    stdout: (t) => void (stdout += t),
    stderr: (t) => void (stderr += t),
    readFile: (p, o) => readTextFile(p, o),
    writeFile: (p, t, mode) => writeFile(p, t, mode === undefined ? {} : { mode }),
    readStdin: async () => options.stdin ?? '',
    stderrIsTty: false,
    // No machine's /etc/calico/calicoctl.cfg leaks into a test: a test names its own.
    defaultConfigFiles: [],
    openDatastore: (config, o) => opener.open(config, o),
    kubernetesReaderOf: (datastore) => opener.kubernetesReaderOf(datastore),
    repairDatastore: (config, o) => opener.repair(config, o),
    clock: testClock(),
    ...options.io,
  });
  return { code, stdout, stderr };
}
