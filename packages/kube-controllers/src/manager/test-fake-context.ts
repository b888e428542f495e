// Test and bench helpers (not exported): a ControllerContext without an API server. Informers
// are maps fed by hand; the live lookups read the same maps.
import { EventEmitter } from 'node:events';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { Registry } from 'prom-client';
import type { ControllerContext, SharedInformers } from './controller.js';
import type { KubeApis } from '../kube/kube-client.js';
import type { Logger } from '../logger.js';
import type { Slim, SlimInformer } from '../kube/slim-informer.js';
import type { SlimNode, SlimPod } from '../kube/slim-pod.js';

/** An informer over a map, changed with `set` and `delete`. */
export interface FakeInformer<T extends Slim> extends SlimInformer<T> {
  set(obj: T): void;
  delete(name: string, namespace?: string): void;
}

export function createFakeInformer<T extends Slim>(): FakeInformer<T> {
  const objects = new Map<string, T>();
  const events = new EventEmitter();
  const key = (name: string, namespace?: string): string => `${namespace ?? ''}/${name}`;
  return {
    get: (name, namespace) => objects.get(key(name, namespace)),
    list: () => [...objects.values()],
    synced: Promise.resolve(),
    isSynced: () => true,
    on: (event, cb) => void events.on(event, cb),
    stop: async () => undefined,
    set(obj) {
      const k = key(obj.metadata.name, obj.metadata.namespace);
      const had = objects.has(k);
      objects.set(k, obj);
      events.emit(had ? 'update' : 'add', obj);
    },
    delete(name, namespace) {
      const k = key(name, namespace);
      const obj = objects.get(k);
      if (!obj) return;
      objects.delete(k);
      events.emit('delete', obj);
    },
  };
}

/** A context whose Kubernetes side is two fake informers; the "live" reads use them too. */
export function createFakeContext(args: {
  datastore: Datastore;
  ipam: IpamClient;
  logger: Logger;
  leader?: () => boolean;
}): ControllerContext & { pods: FakeInformer<SlimPod>; nodes: FakeInformer<SlimNode> } {
  const pods = createFakeInformer<SlimPod>();
  const nodes = createFakeInformer<SlimNode>();
  const informers: SharedInformers = {
    pods: () => pods,
    nodes: () => nodes,
    get: (_k, start) => start(),
  };
  const notFound = (): never => {
    throw Object.assign(new Error('not found'), { code: 404 });
  };
  const kube = {
    core: {
      readNamespacedPod: async ({ name, namespace }: { name: string; namespace: string }) => {
        const p = pods.get(name, namespace);
        return p
          ? {
              metadata: p.metadata,
              spec: { nodeName: p.nodeName },
              status: {
                podIP: p.podIp,
                podIPs: p.podIps.map((ip) => ({ ip })),
                phase: p.phase,
                reason: p.reason,
              },
            }
          : notFound();
      },
      readNode: async ({ name }: { name: string }) => nodes.get(name) ?? notFound(),
    },
    custom: { listClusterCustomObject: async () => notFound() },
  } as unknown as KubeApis;
  return {
    kube,
    informers,
    datastore: args.datastore,
    ipam: args.ipam,
    registry: new Registry(),
    leadership: { isLeader: args.leader ?? (() => true), onChange: () => undefined },
    logger: args.logger,
    pods,
    nodes,
  };
}
