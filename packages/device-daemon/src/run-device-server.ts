import type { Server } from 'node:http';
import type { BootReport } from './daemon-reports.js';
import type { DeviceDaemon } from './device-daemon.js';
import { createDeviceDaemon } from './device-daemon.js';
import { createFileLeaseStore } from './file-lease-store.js';
import { createFileRevisionStore } from './file-revision-store.js';
import { createHttpApi } from './http-api.js';
import { listenPrivateSocket } from './listen-private-socket.js';
import { createProcIpForwarding } from './ip-forwarding.js';
import type { Clock, Logger } from './logger.js';
import { createNatDriver } from './nat-driver.js';
import type { RouteSocket } from './netlink-bridge-driver.js';
import {
  createLazyBridgeDriver,
  createNetlinkBridgeDriver,
  openRouteSocket,
} from './netlink-bridge-driver.js';
import { readRevisionDir } from './read-revision-dir.js';
import { createCommandRunner } from './run-command.js';

/** Where the daemon reads, keeps and serves. */
export interface DeviceServerOptions {
  /** The revision applied at start-up (after the leases are restored); optional. */
  readonly stateDir: string | undefined;
  /** Where the leases and the last good revision are kept. */
  readonly dataDir: string;
  readonly socketPath: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** PATH used to find `nft`, `iptables` and `ip6tables`. */
  readonly path: string;
  /** Usually `/proc`. */
  readonly procRoot: string;
  readonly memory?: () => number;
  /**
   * Opens the NETLINK_ROUTE socket the bridge driver uses, on first need (default: the `netlink`
   * package's). A device without pools never calls it.
   */
  readonly openRouteSocket?: () => Promise<RouteSocket>;
}

/** A running daemon: its core, its HTTP server, what the boot did, and how to stop both. */
export interface DeviceServer {
  readonly daemon: DeviceDaemon;
  readonly server: Server;
  readonly boot: BootReport;
  close(): Promise<void>;
}

/**
 * Wires the real adapters (file lease and revision stores, rtnetlink bridges opened on first
 * need, nft/iptables NAT, /proc forwarding), restores the leases and the last good revision,
 * boots on `stateDir` (a refused revision there keeps the last good one in force and the API up)
 * and listens on `socketPath`, mode 0600 so no other user can connect (a stale socket file is
 * replaced). Rejects when a persisted file is
 * corrupt, the state directory cannot be read, or the host cannot be set up (`HostFailure`).
 */
export async function runDeviceServer(opts: DeviceServerOptions): Promise<DeviceServer> {
  const open = opts.openRouteSocket ?? openRouteSocket;
  const bridges = createLazyBridgeDriver(async () => createNetlinkBridgeDriver(await open()));
  const daemon = createDeviceDaemon({
    store: createFileLeaseStore({ dir: opts.dataDir }),
    revisions: createFileRevisionStore({ dir: opts.dataDir }),
    bridges,
    nat: createNatDriver({ runner: createCommandRunner({ path: opts.path }) }),
    forwarding: createProcIpForwarding({ procRoot: opts.procRoot }),
    logger: opts.logger,
    clock: opts.clock,
    ...(opts.memory === undefined ? {} : { memory: opts.memory }),
  });
  let boot: BootReport;
  try {
    await daemon.init();
    boot = await daemon.boot(
      opts.stateDir === undefined ? undefined : await readRevisionDir(opts.stateDir),
    );
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
  try {
    await listenPrivateSocket(server, opts.socketPath);
  } catch (e) {
    bridges.close();
    throw e;
  }
  opts.logger.log('info', 'listening', { socket: opts.socketPath, revision: boot.inForce });
  return {
    daemon,
    server,
    boot,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      bridges.close();
    },
  };
}
