import { V1MicroTime } from '@kubernetes/client-node';
import type { CoordinationV1Api, V1Lease } from '@kubernetes/client-node';
import { kubeStatus } from '../kube/kube-client.js';
import type { Logger } from '../logger.js';
import { errorText } from '../logger.js';

/** Options of {@link startLeaseElector}. */
export interface LeaseElectorOptions {
  readonly api: Pick<
    CoordinationV1Api,
    'readNamespacedLease' | 'createNamespacedLease' | 'replaceNamespacedLease'
  >;
  readonly namespace: string;
  readonly name: string;
  /** This replica's identity (pod name and a random suffix). */
  readonly identity: string;
  /** How long a lease holds without renewal (default 15 s, client-go's). */
  readonly leaseDurationMs?: number;
  /** A leader that could not renew for this long stops acting as one (default 10 s). */
  readonly renewDeadlineMs?: number;
  /** How often to try to acquire or renew (default 2 s). */
  readonly retryPeriodMs?: number;
  readonly logger: Logger;
  readonly now?: () => number;
  readonly onStartedLeading?: () => void;
  readonly onStoppedLeading?: () => void;
}

/** A running leader election. */
export interface LeaseElector {
  /**
   * Whether this replica leads now: it holds the lease and renewed it within the renew deadline.
   * Checked before every write, so a replica that lost contact stops writing before its lease can
   * have passed to another.
   */
  isLeader(): boolean;
  /** The identity of the holder as last observed ('' when none). */
  holder(): string;
  /** Stops; a leader gives the lease up (holder cleared) so a follower takes over at once. */
  stop(): Promise<void>;
}

/**
 * Leader election through a `coordination.k8s.io/v1` Lease, as client-go's leaderelection does:
 * create or take over the lease when it is free or expired (judged by when this replica last saw
 * it change, on its own clock, not by the holder's timestamps), renew it every retry period, CAS
 * on the lease's resourceVersion so two replicas never both win. Expiry is the lease duration
 * after the last observed change; a leader stops leading once it failed to renew for the renew
 * deadline, which is shorter.
 */
export function startLeaseElector(options: LeaseElectorOptions): LeaseElector {
  const now = options.now ?? Date.now;
  const leaseDurationMs = options.leaseDurationMs ?? 15_000;
  const renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
  const retryPeriodMs = options.retryPeriodMs ?? 2_000;
  const { namespace, name, identity, logger, api } = options;
  let leading = false;
  let lastRenewMs = 0;
  let observed: { holder: string; renew: string; rv: string } | undefined;
  let observedAtMs = 0;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let current: Promise<void> = Promise.resolve();

  const spec = (lease: V1Lease | undefined, transitions: number): V1Lease['spec'] => {
    const t = new V1MicroTime(now());
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(leaseDurationMs / 1000),
      acquireTime:
        lease?.spec?.holderIdentity === identity && lease.spec.acquireTime
          ? lease.spec.acquireTime
          : t,
      renewTime: t,
      leaseTransitions: transitions,
    };
  };
  const setLeading = (v: boolean): void => {
    if (v === leading) return;
    leading = v;
    logger.log('info', v ? 'became the leader' : 'stopped leading', {
      lease: `${namespace}/${name}`,
      identity,
    });
    if (v) options.onStartedLeading?.();
    else options.onStoppedLeading?.();
  };

  async function tryAcquireOrRenew(): Promise<void> {
    let lease: V1Lease | undefined;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
    } catch (e) {
      if (kubeStatus(e) !== 404) throw e;
    }
    if (!lease) {
      await api.createNamespacedLease({
        namespace,
        body: { metadata: { name, namespace }, spec: spec(undefined, 0) },
      });
      lastRenewMs = now();
      observed = { holder: identity, renew: '', rv: '' };
      observedAtMs = lastRenewMs;
      setLeading(true);
      return;
    }
    const holder = lease.spec?.holderIdentity ?? '';
    const renew = lease.spec?.renewTime ? new Date(lease.spec.renewTime).toISOString() : '';
    const rv = lease.metadata?.resourceVersion ?? '';
    if (!observed || observed.holder !== holder || observed.renew !== renew || observed.rv !== rv) {
      observed = { holder, renew, rv };
      observedAtMs = now();
    }
    const durationMs = (lease.spec?.leaseDurationSeconds ?? leaseDurationMs / 1000) * 1000;
    const free = holder === '' || observedAtMs + durationMs < now();
    if (holder !== identity && !free) {
      setLeading(false);
      return;
    }
    const transitions = (lease.spec?.leaseTransitions ?? 0) + (holder === identity ? 0 : 1);
    const written = await api.replaceNamespacedLease({
      name,
      namespace,
      body: {
        ...lease,
        metadata: { ...lease.metadata, name, namespace },
        spec: spec(lease, transitions),
      },
    });
    lastRenewMs = now();
    observed = {
      holder: identity,
      renew: written.spec?.renewTime ? new Date(written.spec.renewTime).toISOString() : '',
      rv: written.metadata?.resourceVersion ?? '',
    };
    observedAtMs = lastRenewMs;
    if (holder !== identity)
      logger.log('info', 'acquired the lease', {
        lease: `${namespace}/${name}`,
        identity,
        previousHolder: holder,
      });
    setLeading(true);
  }

  const tick = (): void => {
    if (stopped) return;
    current = tryAcquireOrRenew()
      .catch((e: unknown) => {
        // 409: someone else wrote the lease first; we are not the leader this round.
        if (kubeStatus(e) !== 409)
          logger.log('warn', 'lease acquire/renew failed', {
            lease: `${namespace}/${name}`,
            error: errorText(e),
          });
        if (leading && now() - lastRenewMs >= renewDeadlineMs) setLeading(false);
      })
      .finally(() => {
        if (!stopped) timer = setTimeout(tick, retryPeriodMs);
      });
  };
  tick();

  return {
    isLeader: () => leading && now() - lastRenewMs < renewDeadlineMs,
    holder: () => observed?.holder ?? '',
    async stop() {
      stopped = true;
      clearTimeout(timer);
      // An API request has no deadline of its own: wait for the one in flight, but not forever.
      await Promise.race([
        current,
        new Promise((r) => setTimeout(r, retryPeriodMs + 5000).unref()),
      ]);
      if (!leading) return;
      setLeading(false);
      try {
        const lease = await api.readNamespacedLease({ name, namespace });
        if (lease.spec?.holderIdentity === identity) {
          await api.replaceNamespacedLease({
            name,
            namespace,
            body: {
              ...lease,
              spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1 },
            },
          });
        }
      } catch (e) {
        logger.log('warn', 'could not give up the lease', { error: errorText(e) });
      }
    },
  };
}
