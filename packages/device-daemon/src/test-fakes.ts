// Fake host adapters for tests (excluded from the build by the test-* pattern).
import type { DeviceDaemonDeps } from './device-daemon.js';
import type { PersistedState } from './lease-codec.js';
import { createMemoryLeaseStore } from './file-lease-store.js';
import { createMemoryLogger } from './logger.js';
import type { NatApplyArgs, NatBackend } from './nat-driver.js';
import type { BridgeDriver } from './netlink-bridge-driver.js';

/** Fake ports that record every host operation. */
export function fakeDeps(
  opts: { initial?: PersistedState; natBackend?: NatBackend; failBridge?: string } = {},
) {
  const host: string[] = [];
  const bridges: BridgeDriver = {
    async ensureBridge(a) {
      if (a.bridge === opts.failBridge)
        throw Object.assign(new Error('boom'), { code: 'HostFailure' });
      host.push(`ensure ${a.bridge}/${a.prefix}`);
    },
    async removeAddress(a) {
      host.push(`unaddr ${a.bridge}`);
    },
    async deleteBridge(b) {
      host.push(`delete ${b}`);
    },
    close() {},
  };
  const natCalls: NatApplyArgs[] = [];
  const store = createMemoryLeaseStore(opts.initial);
  const logger = createMemoryLogger();
  const deps = {
    store,
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
      async enable() {
        host.push('forwarding');
      },
    },
    logger,
    clock: { now: () => 0 },
  } satisfies DeviceDaemonDeps;
  return { deps, host, natCalls, store, logger };
}
