// Fake host adapters and in-memory stores for tests (excluded from the build by the test-* pattern).
import type { DeviceDaemonDeps } from './device-daemon.js';
import { DeviceError } from './device-error.js';
import type { LeaseStore } from './file-lease-store.js';
import type { RevisionStore } from './file-revision-store.js';
import type { PersistedState } from './lease-codec.js';
import { decodeLeaseFile, encodeLeaseFile } from './lease-codec.js';
import type { LogFields, Logger, LogLevel } from './logger.js';
import type { NatApplyArgs, NatBackend } from './nat-driver.js';
import type { BridgeDriver, HostRoute, RouteSocket } from './netlink-bridge-driver.js';
import { describeErrno, ERRNO } from './netlink-errno.js';
import { decodeLink, encodeNewBridge, NLMSG_ERROR, RTM } from './rtnetlink.js';
import type { RevisionFiles } from './revision.js';
import { decodeRevisionFile, encodeRevisionFile } from './revision-codec.js';

/** A logger that keeps its lines in memory. */
export function createMemoryLogger(): Logger & {
  lines: { level: LogLevel; msg: string; fields: LogFields | undefined }[];
} {
  const lines: { level: LogLevel; msg: string; fields: LogFields | undefined }[] = [];
  return {
    lines,
    log(level, msg, fields) {
      lines.push({ level, msg, fields });
    },
  };
}

/** A lease store in memory (through the real codec), counting its saves. */
function createMemoryLeaseStore(initial?: PersistedState): LeaseStore & { saves: number } {
  let current = initial === undefined ? undefined : encodeLeaseFile(initial);
  const store = {
    saves: 0,
    async load() {
      return current === undefined ? undefined : decodeLeaseFile(current);
    },
    async save(state: PersistedState) {
      current = encodeLeaseFile(state);
      store.saves++;
    },
  };
  return store;
}

/** A revision store in memory (through the real codec), counting its saves. */
function createMemoryRevisionStore(initial?: RevisionFiles): RevisionStore & { saves: number } {
  let current = initial === undefined ? undefined : encodeRevisionFile(initial);
  const store = {
    saves: 0,
    async load() {
      return current === undefined ? undefined : decodeRevisionFile(current);
    },
    async save(files: RevisionFiles) {
      current = encodeRevisionFile(files);
      store.saves++;
    },
  };
  return store;
}

/** Fake ports that record every host operation. */
export function fakeDeps(
  opts: {
    initial?: PersistedState;
    lastGood?: RevisionFiles;
    natBackend?: NatBackend;
    failBridge?: string;
    /** The host's routes (none by default); change the array to change the host. */
    routes?: HostRoute[];
    /** Each bridge's ports (none by default); change the object to change the host. */
    ports?: Record<string, string[]>;
  } = {},
) {
  const host: string[] = [];
  const routes = opts.routes ?? [];
  const ports = opts.ports ?? {};
  const bridges: BridgeDriver = {
    async ensureBridge(a) {
      if (a.bridge === opts.failBridge)
        throw new DeviceError(
          'HostFailure',
          `netlink create bridge ${a.bridge}: ${describeErrno(ERRNO.EPERM)}`,
        );
      host.push(`ensure ${a.bridge}${a.addresses.map((x) => `/${x.prefix}`).join('')}`);
    },
    async removeAddress(a) {
      host.push(`unaddr ${a.bridge} v${a.address.family}`);
    },
    async deleteBridge(b) {
      host.push(`delete ${b}`);
    },
    async listPorts(b) {
      return ports[b] ?? [];
    },
    async listRoutes() {
      return routes;
    },
    close() {},
  };
  const natCalls: NatApplyArgs[] = [];
  const store = createMemoryLeaseStore(opts.initial);
  const revisions = createMemoryRevisionStore(opts.lastGood);
  const logger = createMemoryLogger();
  const deps = {
    store,
    revisions,
    bridges,
    nat: {
      async apply(a: NatApplyArgs) {
        natCalls.push(a);
        const backend = opts.natBackend ?? 'nftables';
        return {
          backend,
          warnings: backend === 'none' ? ['neither nftables (nft) nor iptables available'] : [],
        };
      },
    },
    forwarding: {
      async enable(family: 4 | 6) {
        host.push(family === 4 ? 'forwarding' : 'forwarding6');
      },
    },
    logger,
    clock: { now: () => 0 },
  } satisfies DeviceDaemonDeps;
  return { deps, host, natCalls, store, revisions, logger, routes, ports };
}

/**
 * A fake NETLINK_ROUTE socket that records each request's message type and acknowledges it; a
 * GETLINK answers with an existing bridge (`index` 7), so a driver over it "ensures" any bridge.
 * `errnoOf(type)` (default 0) makes requests of a type fail with that errno instead.
 */
export function fakeRouteSocket(
  opts: { errnoOf?: (type: number) => number } = {},
): RouteSocket & { types: number[]; closed: boolean } {
  const ack = new Uint8Array(20); // nlmsgerr with error 0
  const socket = {
    types: [] as number[],
    closed: false,
    async request(type: number, body: Uint8Array) {
      socket.types.push(type);
      const errno = opts.errnoOf?.(type) ?? 0;
      if (errno !== 0) {
        const nack = new Uint8Array(20);
        new DataView(nack.buffer).setInt32(0, -errno, true);
        return [[{ type: NLMSG_ERROR, data: nack }], undefined] as const;
      }
      if (type === RTM.GETLINK) {
        const link = encodeNewBridge(decodeLink(body).name ?? 'br');
        new DataView(link.buffer).setInt32(4, 7, true);
        return [[{ type: RTM.NEWLINK, data: link }], undefined] as const;
      }
      return [[{ type: NLMSG_ERROR, data: ack }], undefined] as const;
    },
    close() {
      socket.closed = true;
    },
  };
  return socket;
}
