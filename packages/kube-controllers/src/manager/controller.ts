import type { Datastore, IpamClient } from '@netledger/ipam-core';
import type { Registry } from 'prom-client';
import type { KubeApis } from '../kube/kube-client.js';
import type { Logger } from '../logger.js';
import type { Slim, SlimInformer } from '../kube/slim-informer.js';
import type { SlimNode, SlimPod } from '../kube/slim-pod.js';

/** Informers shared by every controller of a process: one list+watch per resource. */
export interface SharedInformers {
  pods(): SlimInformer<SlimPod>;
  nodes(): SlimInformer<SlimNode>;
  /** Any other resource, started on first use under `key` (e.g. services for a LoadBalancer controller). */
  get<T extends Slim>(key: string, start: () => SlimInformer<T>): SlimInformer<T>;
}

/** Who leads: one lease for the process; every controller's writes are gated by it. */
export interface Leadership {
  isLeader(): boolean;
  /** Called whenever leadership is gained or lost. */
  onChange(listener: (leading: boolean) => void): void;
}

/** What the manager hands every controller. */
export interface ControllerContext {
  readonly kube: KubeApis;
  readonly informers: SharedInformers;
  /** The IPAM store (reads of pools, config and nodes served from a watch-fed mirror). */
  readonly datastore: Datastore;
  readonly ipam: IpamClient;
  readonly registry: Registry;
  readonly leadership: Leadership;
  readonly logger: Logger;
}

/** A controller's health or readiness, with a reason when it is not. */
export interface ControllerStatus {
  readonly ok: boolean;
  readonly detail?: string;
}

/**
 * One controller of `netledger-kube-controllers` (the IPAM GC; a LoadBalancer controller next to
 * it). The manager starts it with the shared context, asks it for health and readiness, calls
 * `beforeScrape` before each `/metrics` scrape, and stops it on shutdown.
 */
export interface Controller {
  readonly name: string;
  /** Starts watching; resolves once started (not necessarily synced). */
  start(ctx: ControllerContext): Promise<void>;
  /** Ready: its caches are synced and it can act. */
  readiness(): ControllerStatus;
  /** Healthy: its loop is alive and not stuck. */
  health(): ControllerStatus;
  /** Recompute what the next scrape shows (e.g. full-recompute gauges). */
  beforeScrape?(): void;
  /** Stops; no write is started after it resolves. */
  stop(): Promise<void>;
}
