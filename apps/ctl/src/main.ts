// netledgerctl: hand argv, the environment, the process streams and a store opener to
// @netledger/ctl's runCtl.
import { writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { DEFAULT_CONFIG_FILES, readTextFile, readTextStream, runCtl } from '@netledger/ctl';
import { createDatastoreOpener } from '@netledger/datastore-config';
import { loadEtcdGrpc } from '@netledger/datastore-config/etcd-grpc';

/** The git commit the bundle was built from, set by scripts/bundle-app.mjs (absent from source). */
declare const NETLEDGER_COMMIT: string | undefined;
const commit = typeof NETLEDGER_COMMIT === 'string' ? NETLEDGER_COMMIT : 'unknown';

// An operator's CLI: etcd over gRPC (etcd3, as calicoctl), and an unreachable etcd reported
// after 5 s rather than the library's 10.
const user = () => ({
  uid: process.getuid?.(),
  home: homedir(),
  xdgStateHome: process.env.XDG_STATE_HOME,
});
/** Writes all of `text` and waits until it is flushed (exit must not cut a pipe short). */
function write(stream: NodeJS.WriteStream, text: string): void {
  if (text !== '') stream.write(text);
}

const opener = createDatastoreOpener({
  user,
  // A file store's failed cleanup does not fail the command: said, as netledgerctl's warnings are.
  onFileWarning: (line) => write(process.stderr, `Warning: ${line}\n`),
  etcd: { transport: 'grpc', dialTimeoutMs: 5000, loadGrpc: loadEtcdGrpc },
});

const code = await runCtl({
  argv: process.argv.slice(2),
  env: process.env,
  defaultConfigFiles: DEFAULT_CONFIG_FILES,
  commit,
  stdout: (t) => write(process.stdout, t),
  stderr: (t) => write(process.stderr, t),
  readFile: (path, options) => readTextFile(path, options),
  writeFile: (path, text, mode) => writeFile(path, text, mode === undefined ? {} : { mode }),
  readStdin: (options) => readTextStream(process.stdin, options),
  stderrIsTty: process.stderr.isTTY === true,
  openDatastore: (config, options) => opener.open(config, options),
  kubernetesReaderOf: (datastore) => opener.kubernetesReaderOf(datastore),
  repairDatastore: (config, options) => opener.repair(config, options),
});
process.exitCode = code;
