import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { Registry, collectDefaultMetrics } from 'prom-client';
import type { Controller, ControllerContext, Leadership } from './controller.js';
import { serveHttpEndpoints } from './http-server.js';
import type { HttpEndpointsServer } from './http-server.js';
import type { KubeApis } from '../kube/kube-client.js';
import { startLeaseElector } from './lease-elector.js';
import type { LeaseElector } from './lease-elector.js';
import type { Logger } from '../logger.js';
import { errorText } from '../logger.js';
import { createSharedInformers } from '../kube/shared-informers.js';

/** Leader election settings. */
interface LeaderElectionOptions {
  readonly namespace: string;
  readonly name: string;
  /** Default: the hostname (the pod name) and a random suffix. */
  readonly identity?: string;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryPeriodMs?: number;
}

/** Options of {@link startControllerManager}. */
export interface ControllerManagerOptions {
  readonly controllers: readonly Controller[];
  readonly kube: KubeApis;
  readonly datastore: Datastore;
  readonly ipam: IpamClient;
  readonly logger: Logger;
  readonly leaderElection: LeaderElectionOptions;
  /** Where `/metrics`, `/healthz` and `/readyz` are served. */
  readonly listen: { readonly host: string; readonly port: number };
}

/** A running manager. */
export interface ControllerManager {
  /** The address the HTTP endpoints listen on. */
  readonly address: string;
  readonly registry: Registry;
  readonly elector: LeaseElector;
  /** Stops every controller, gives up the lease, stops informers and the server. */
  stop(): Promise<void>;
}

/**
 * Runs controllers side by side with what they share: the informers, the datastore and IPAM
 * client, one Prometheus registry, one leader election (every controller's writes are gated by
 * it; followers keep their caches and serve metrics), and the HTTP endpoints (`/metrics`,
 * `/healthz`: every controller's loop alive, `/readyz`: every controller synced). Rejects, having
 * stopped what it started, if the HTTP address cannot be bound or a controller fails to start.
 */
export async function startControllerManager(
  options: ControllerManagerOptions,
): Promise<ControllerManager> {
  const { logger } = options;
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const informers = createSharedInformers(options.kube, logger);
  const listeners: ((leading: boolean) => void)[] = [];
  const le = options.leaderElection;
  const identity = le.identity ?? `${hostname()}_${randomBytes(4).toString('hex')}`;
  const elector = startLeaseElector({
    api: options.kube.coordination,
    namespace: le.namespace,
    name: le.name,
    identity,
    ...(le.leaseDurationMs !== undefined && { leaseDurationMs: le.leaseDurationMs }),
    ...(le.renewDeadlineMs !== undefined && { renewDeadlineMs: le.renewDeadlineMs }),
    ...(le.retryPeriodMs !== undefined && { retryPeriodMs: le.retryPeriodMs }),
    logger,
    onStartedLeading: () => {
      listeners.forEach((l) => l(true));
      void recordLeaderEvent(options, identity);
    },
    onStoppedLeading: () => listeners.forEach((l) => l(false)),
  });
  const leadership: Leadership = {
    isLeader: () => elector.isLeader(),
    onChange: (l) => void listeners.push(l),
  };
  const ctx: ControllerContext = {
    kube: options.kube,
    informers,
    datastore: options.datastore,
    ipam: options.ipam,
    registry,
    leadership,
    logger,
  };
  const started: Controller[] = [];
  let server: HttpEndpointsServer | undefined;
  const stopAll = async (): Promise<void> => {
    await Promise.allSettled(started.map((c) => c.stop()));
    await elector.stop();
    await informers.stopAll();
    await server?.close();
  };
  try {
    for (const c of options.controllers) {
      await c.start(ctx);
      started.push(c);
    }
    server = await serveEndpoints(options, registry);
  } catch (e) {
    await stopAll();
    throw e;
  }
  logger.log('info', 'serving metrics and health', {
    address: server.address,
    controllers: options.controllers.map((c) => c.name).join(','),
  });
  return { address: server.address, registry, elector, stop: stopAll };
}

/** Like client-go, a new leader records an Event on the Lease (best effort: a failure is logged). */
async function recordLeaderEvent(
  options: ControllerManagerOptions,
  identity: string,
): Promise<void> {
  const le = options.leaderElection;
  const at = new Date();
  try {
    await options.kube.core.createNamespacedEvent({
      namespace: le.namespace,
      body: {
        metadata: { generateName: `${le.name}.` },
        involvedObject: {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          name: le.name,
          namespace: le.namespace,
        },
        reason: 'LeaderElection',
        message: `${identity} became leader`,
        type: 'Normal',
        source: { component: 'netledger-kube-controllers' },
        firstTimestamp: at,
        lastTimestamp: at,
        count: 1,
      },
    });
  } catch (e) {
    options.logger.log('warn', 'could not record the leader election event', {
      error: errorText(e),
    });
  }
}

/** Serves `/metrics` (each controller's `beforeScrape` first), `/healthz` and `/readyz`. */
function serveEndpoints(
  options: ControllerManagerOptions,
  registry: Registry,
): Promise<HttpEndpointsServer> {
  const statusText = (pick: (c: Controller) => { ok: boolean; detail?: string }) => {
    const rows = options.controllers.map((c) => ({ c, s: pick(c) }));
    const ok = rows.every((r) => r.s.ok);
    const body = rows
      .map((r) => `${r.s.ok ? 'ok' : 'FAIL'} ${r.c.name}${r.s.detail ? `: ${r.s.detail}` : ''}`)
      .join('\n');
    return { ok, body: `${body}\n` };
  };
  return serveHttpEndpoints(
    {
      metrics: async () => {
        for (const c of options.controllers) c.beforeScrape?.();
        return { contentType: registry.contentType, body: await registry.metrics() };
      },
      healthz: () => statusText((c) => c.health()),
      readyz: () => statusText((c) => c.readiness()),
    },
    options.listen,
  );
}
