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
  const election = new LeaseElection(options);
  election.tick();
  return {
    isLeader: () => election.isLeader(),
    holder: () => election.holder(),
    stop: () => election.stop(),
  };
}

/** What was last seen of the lease; expiry counts from when it last changed. */
interface Observed {
  readonly holder: string;
  readonly renew: string;
  readonly rv: string;
}

const observedOf = (lease: V1Lease, holder = lease.spec?.holderIdentity ?? ''): Observed => ({
  holder,
  renew: lease.spec?.renewTime ? new Date(lease.spec.renewTime).toISOString() : '',
  rv: lease.metadata?.resourceVersion ?? '',
});

/** One replica's election: its view of the lease and its timer. */
class LeaseElection {
  private readonly now: () => number;
  private readonly leaseDurationMs: number;
  private readonly renewDeadlineMs: number;
  private readonly retryPeriodMs: number;
  private leading = false;
  private lastRenewMs = 0;
  private observed: Observed | undefined;
  private observedAtMs = 0;
  private stopped = false;
  private timer: NodeJS.Timeout | undefined;
  private current: Promise<void> = Promise.resolve();

  constructor(private readonly options: LeaseElectorOptions) {
    this.now = options.now ?? Date.now;
    this.leaseDurationMs = options.leaseDurationMs ?? 15_000;
    this.renewDeadlineMs = options.renewDeadlineMs ?? 10_000;
    this.retryPeriodMs = options.retryPeriodMs ?? 2_000;
  }

  isLeader(): boolean {
    return this.leading && this.now() - this.lastRenewMs < this.renewDeadlineMs;
  }

  holder(): string {
    return this.observed?.holder ?? '';
  }

  /** One attempt to acquire or renew, then the next one a retry period later. */
  tick(): void {
    if (this.stopped) return;
    const { logger, namespace, name } = this.options;
    this.current = this.tryAcquireOrRenew()
      .catch((e: unknown) => {
        // 409: someone else wrote the lease first; we are not the leader this round.
        if (kubeStatus(e) !== 409)
          logger.log('warn', 'lease acquire/renew failed', {
            lease: `${namespace}/${name}`,
            error: errorText(e),
          });
        if (this.leading && this.now() - this.lastRenewMs >= this.renewDeadlineMs)
          this.setLeading(false);
      })
      .finally(() => {
        if (!this.stopped) this.timer = setTimeout(() => this.tick(), this.retryPeriodMs);
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    // An API request has no deadline of its own: wait for the one in flight, but not forever.
    await Promise.race([
      this.current,
      new Promise((r) => setTimeout(r, this.retryPeriodMs + 5000).unref()),
    ]);
    if (!this.leading) return;
    this.setLeading(false);
    await this.giveUp();
  }

  private async tryAcquireOrRenew(): Promise<void> {
    const { api, namespace, name, identity, logger } = this.options;
    let lease: V1Lease | undefined;
    try {
      lease = await api.readNamespacedLease({ name, namespace });
    } catch (e) {
      if (kubeStatus(e) !== 404) throw e;
    }
    if (!lease) {
      await api.createNamespacedLease({
        namespace,
        body: { metadata: { name, namespace }, spec: this.spec(undefined, 0) },
      });
      this.renewed({ holder: identity, renew: '', rv: '' });
      this.setLeading(true);
      return;
    }
    const seen = observedOf(lease);
    const holder = seen.holder;
    const o = this.observed;
    if (!o || o.holder !== holder || o.renew !== seen.renew || o.rv !== seen.rv) {
      this.observed = seen;
      this.observedAtMs = this.now();
    }
    const durationMs = (lease.spec?.leaseDurationSeconds ?? this.leaseDurationMs / 1000) * 1000;
    const free = holder === '' || this.observedAtMs + durationMs < this.now();
    if (holder !== identity && !free) {
      this.setLeading(false);
      return;
    }
    const transitions = (lease.spec?.leaseTransitions ?? 0) + (holder === identity ? 0 : 1);
    const written = await api.replaceNamespacedLease({
      name,
      namespace,
      body: {
        ...lease,
        metadata: { ...lease.metadata, name, namespace },
        spec: this.spec(lease, transitions),
      },
    });
    this.renewed(observedOf(written, identity));
    if (holder !== identity)
      logger.log('info', 'acquired the lease', {
        lease: `${namespace}/${name}`,
        identity,
        previousHolder: holder,
      });
    this.setLeading(true);
  }

  /** Records a successful write of the lease by this replica. */
  private renewed(observed: Observed): void {
    this.lastRenewMs = this.now();
    this.observed = observed;
    this.observedAtMs = this.lastRenewMs;
  }

  private spec(lease: V1Lease | undefined, transitions: number): V1Lease['spec'] {
    const { identity } = this.options;
    const t = new V1MicroTime(this.now());
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.leaseDurationMs / 1000),
      acquireTime:
        lease?.spec?.holderIdentity === identity && lease.spec.acquireTime
          ? lease.spec.acquireTime
          : t,
      renewTime: t,
      leaseTransitions: transitions,
    };
  }

  private setLeading(v: boolean): void {
    if (v === this.leading) return;
    this.leading = v;
    const { logger, namespace, name, identity } = this.options;
    logger.log('info', v ? 'became the leader' : 'stopped leading', {
      lease: `${namespace}/${name}`,
      identity,
    });
    if (v) this.options.onStartedLeading?.();
    else this.options.onStoppedLeading?.();
  }

  /** Clears the holder (a 1 s lease) so a follower takes over at once; a failure is logged. */
  private async giveUp(): Promise<void> {
    const { api, namespace, name, identity, logger } = this.options;
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
  }
}
