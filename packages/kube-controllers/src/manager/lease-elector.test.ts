import { describe, expect, it } from 'vitest';
import type { V1Lease } from '@kubernetes/client-node';
import { startLeaseElector } from './lease-elector.js';
import type { LeaseElector } from './lease-elector.js';
import { silentLogger } from '../logger.js';

/** A Lease API in memory with the API server's resourceVersion compare-and-swap. */
function fakeLeaseApi() {
  let lease: V1Lease | undefined;
  let rv = 0;
  const status = (code: number) => Object.assign(new Error(String(code)), { code });
  const api = {
    down: new Set<string>(),
    readNamespacedLease: async () => {
      if (!lease) throw status(404);
      return structuredClone(lease);
    },
    createNamespacedLease: async ({ body }: { body: V1Lease }) => {
      if (lease) throw status(409);
      lease = {
        ...structuredClone(body),
        metadata: { ...body.metadata, resourceVersion: String(++rv) },
      };
      return structuredClone(lease);
    },
    replaceNamespacedLease: async ({ body }: { body: V1Lease }) => {
      if (api.down.has(body.spec?.holderIdentity ?? '')) throw status(503);
      if (!lease || body.metadata?.resourceVersion !== lease.metadata?.resourceVersion)
        throw status(409);
      lease = {
        ...structuredClone(body),
        metadata: { ...body.metadata, resourceVersion: String(++rv) },
      };
      return structuredClone(lease);
    },
    current: () => lease,
  };
  return api;
}

function elect(
  api: ReturnType<typeof fakeLeaseApi>,
  identity: string,
  onLead: () => void,
): LeaseElector {
  return startLeaseElector({
    api: api,
    namespace: 'kube-system',
    name: 'lease',
    identity,
    leaseDurationMs: 400,
    renewDeadlineMs: 250,
    retryPeriodMs: 20,
    logger: silentLogger,
    onStartedLeading: onLead,
  });
}

describe('startLeaseElector', () => {
  it('elects one replica; the other takes over at once when the leader steps down', async () => {
    const api = fakeLeaseApi();
    let aLeads!: () => void;
    const a = elect(api, 'a', () => aLeads());
    await new Promise<void>((r) => (aLeads = r));
    let bLeads!: () => void;
    const bLed = new Promise<void>((r) => (bLeads = r));
    const b = elect(api, 'b', () => bLeads());
    expect(a.isLeader()).toBe(true);
    expect(b.isLeader()).toBe(false);
    await a.stop(); // gives the lease up
    expect(api.current()?.spec?.holderIdentity).toBe('');
    await bLed;
    expect(b.isLeader()).toBe(true);
    expect(api.current()?.spec).toMatchObject({ holderIdentity: 'b', leaseTransitions: 1 });
    await b.stop();
  });

  it('never has two leaders: a leader that cannot renew stops leading before the lease can pass on', async () => {
    const api = fakeLeaseApi();
    let aLeads!: () => void;
    const a = elect(api, 'a', () => aLeads());
    await new Promise<void>((r) => (aLeads = r));
    let aWhenBLeads: boolean | undefined;
    let bLeads!: () => void;
    const bLed = new Promise<void>((r) => (bLeads = r));
    const b = elect(api, 'b', () => {
      aWhenBLeads = a.isLeader();
      bLeads();
    });
    api.down.add('a'); // a can no longer renew (partitioned)
    const cutAt = Date.now();
    await bLed;
    expect(aWhenBLeads).toBe(false);
    expect(Date.now() - cutAt).toBeGreaterThanOrEqual(400);
    expect(a.isLeader()).toBe(false);
    await a.stop();
    await b.stop();
  });
});
