import { homedir } from 'node:os';
import type { DatastoreOpenerOptions, DatastoreUser } from './store-opener.js';

/** This process's user, for its default file store (read when asked: `HOME` may be unset). */
export function processUser(): DatastoreUser {
  return { uid: process.getuid?.(), home: homedir(), xdgStateHome: process.env['XDG_STATE_HOME'] };
}

/**
 * The store opener options of a long-lived netledger process that reaches etcd through its HTTP
 * gateway only (its bundle carries no gRPC client): a config asking for gRPC fails to open, naming
 * `program`. The file store's options and the warning sink are passed through.
 */
export function daemonOpenerOptions(
  program: string,
  extra: Pick<DatastoreOpenerOptions, 'file' | 'onFileWarning'> = {},
): DatastoreOpenerOptions {
  return {
    user: processUser,
    ...extra,
    etcd: {
      transport: 'http',
      loadGrpc: () =>
        Promise.reject(new Error(`the gRPC transport to etcd is not built into ${program}`)),
    },
  };
}
