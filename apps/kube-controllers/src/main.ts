// netledger-kube-controllers: hand argv, the environment, the streams, the stop signals and the
// store opener's options to runKubeControllers, and exit with its status.
import { daemonOpenerOptions } from '@netledger/datastore-config';
import { stopSignal } from '@netledger/log';
import { runKubeControllers } from './run.js';

const code = await runKubeControllers({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  stopSignal: stopSignal(),
  version: '0.1.0',
  // etcd through its HTTP gateway: the environment cannot ask for gRPC (etcd_transport is a CNI
  // netconf key), and the gRPC client is not built in (build.mjs).
  opener: daemonOpenerOptions('netledger-kube-controllers'),
});
process.exit(code);
