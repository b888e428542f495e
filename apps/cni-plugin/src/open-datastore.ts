// How netledger-ipam opens its store: @netledger/datastore-config's opener with the options of a
// one-shot process. etcd goes through its HTTP/JSON gateway over node:http, far cheaper to load and
// connect than the gRPC client (docs/cni.md, "Start-up cost"; figures in docs/benchmarks.md);
// `etcd_transport: "grpc"` imports the gRPC adapter, a chunk of its own in the bundle (build.mjs).
import { homedir } from 'node:os';
import { createDatastoreOpener } from '@netledger/datastore-config';
import type { DatastoreOpener } from '@netledger/datastore-config';

/** Past changes the file store keeps for watchers (datastore-file's default is 100). */
const FILE_HISTORY_LIMIT = 20;

/**
 * The plugin's opener, for one invocation. The file store keeps a short history, since every write
 * rewrites the whole file, history included, inside the host lock, and the plugin never watches
 * (other processes' watches that fall further behind re-list, as the Datastore contract says);
 * it uses blocking file calls, each skipping a thread-pool round trip in a one-shot process. Its
 * failed cleanups go to `onFileWarning`, one line each.
 */
export function createPluginOpener(
  options: { readonly onFileWarning?: (line: string) => void } = {},
): DatastoreOpener {
  return createDatastoreOpener({
    user: () => ({
      uid: process.getuid?.(),
      home: homedir(),
      xdgStateHome: process.env['XDG_STATE_HOME'],
    }),
    file: {
      historyLimit: FILE_HISTORY_LIMIT,
      blockingIo: true,
    },
    ...(options.onFileWarning && { onFileWarning: options.onFileWarning }),
    etcd: {
      transport: 'http',
      // A dynamic import: the gRPC client is a chunk of its own, loaded only for a config that
      // asks for it (build.mjs).
      loadGrpc: async () => (await import('@netledger/datastore-config/etcd-grpc')).loadEtcdGrpc(),
    },
    // One connection: the few reads an invocation sends at once queue on it rather than each
    // paying a TLS handshake (docs/cni.md, "Start-up cost").
    kubernetes: { maxSockets: 1 },
  });
}
