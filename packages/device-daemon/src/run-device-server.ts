import { rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { DeviceDaemon } from './device-daemon.js';
import { createDeviceDaemon } from './device-daemon.js';
import { createFileLeaseStore } from './file-lease-store.js';
import { createHttpApi } from './http-api.js';
import { createProcIpForwarding } from './ip-forwarding.js';
import type { Clock, Logger } from './logger.js';
import { createNatDriver } from './nat-driver.js';
import { createNetlinkBridgeDriver } from './netlink-bridge-driver.js';
import { readRevisionDir } from './read-revision-dir.js';
import { createCommandRunner } from './run-command.js';

/** Where the daemon reads, keeps and serves. */
export interface DeviceServerOptions {
  /** The revision applied at start-up (after the leases are restored); optional. */
  readonly stateDir: string | undefined;
  readonly dataDir: string;
  readonly socketPath: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** PATH used to find `nft` and `iptables`. */
  readonly path: string;
  /** Usually `/proc`. */
  readonly procRoot: string;
  readonly memory?: () => number;
}

/** A running daemon: its core and its HTTP server, and how to stop both. */
export interface DeviceServer {
  readonly daemon: DeviceDaemon;
  readonly server: Server;
  close(): Promise<void>;
}

/**
 * Wires the real adapters (file lease store, rtnetlink bridges, nft/iptables NAT, /proc
 * forwarding), restores the leases, applies `stateDir` if given, and listens on `socketPath`
 * (a stale socket file is replaced). Rejects when the lease file is corrupt or the initial apply
 * fails.
 */
export async function runDeviceServer(opts: DeviceServerOptions): Promise<DeviceServer> {
  const bridges = createNetlinkBridgeDriver();
  const daemon = createDeviceDaemon({
    store: createFileLeaseStore({ dir: opts.dataDir }),
    bridges,
    nat: createNatDriver({ runner: createCommandRunner({ path: opts.path }) }),
    forwarding: createProcIpForwarding({ procRoot: opts.procRoot }),
    logger: opts.logger,
    clock: opts.clock,
    ...(opts.memory === undefined ? {} : { memory: opts.memory }),
  });
  try {
    await daemon.init();
    if (opts.stateDir !== undefined) await daemon.apply(await readRevisionDir(opts.stateDir));
  } catch (e) {
    bridges.close();
    throw e;
  }
  const server = createHttpApi({
    daemon,
    loadRevision: readRevisionDir,
    defaultStateDir: opts.stateDir,
    logger: opts.logger,
  });
  await rm(opts.socketPath, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.socketPath, () => resolve());
  });
  opts.logger.log('info', 'listening', { socket: opts.socketPath });
  return {
    daemon,
    server,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      bridges.close();
    },
  };
}
