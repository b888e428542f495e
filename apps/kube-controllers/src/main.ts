// netledger-kube-controllers: hand argv, the environment, the streams, the stop signals and the
// store opener's options to runKubeControllers, and exit with its status.
import { homedir } from 'node:os';
import { runKubeControllers } from './run.js';

const stopSignal = new Promise<string>((resolve) => {
  for (const s of ['SIGTERM', 'SIGINT'] as const) process.once(s, () => resolve(s));
});

const code = await runKubeControllers({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (t) => void process.stdout.write(t),
  stderr: (t) => void process.stderr.write(t),
  stopSignal,
  version: '0.1.0',
  // A long-lived process: etcd over its HTTP gateway by default, gRPC when a config asks for it.
  opener: {
    user: () => ({
      uid: process.getuid?.(),
      home: homedir(),
      xdgStateHome: process.env.XDG_STATE_HOME,
    }),
    etcd: {
      transport: 'http',
      loadGrpc: async () => (await import('@netledger/datastore-config/etcd-grpc')).loadEtcdGrpc(),
    },
  },
});
process.exit(code);
