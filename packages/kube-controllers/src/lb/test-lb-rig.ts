// Test and bench helpers (not exported): the LoadBalancer controller without an API server.
// Services live in a hand-fed informer; status writes change them there (firing the update, as
// the API's watch would) and Events are recorded.
import { randomUUID } from 'node:crypto';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { Registry } from 'prom-client';
import type { ControllerContext, SharedInformers } from '../manager/controller.js';
import type { KubeApis } from '../kube/kube-client.js';
import type { LbKubeWriter, ServiceEvent } from './lb-kube-writer.js';
import type { Logger } from '../logger.js';
import type { IngressEntry, SlimService } from '@netledger/ipam-core/load-balancer';
import type { FakeInformer } from '../manager/test-fake-context.js';
import { createFakeInformer } from '../manager/test-fake-context.js';

/** A Service as a test writes it: type LoadBalancer, single-stack IPv4, port TCP/80 by default. */
export interface ServiceSpec {
  readonly name: string;
  readonly namespace?: string;
  readonly type?: string;
  readonly loadBalancerClass?: string;
  readonly loadBalancerIp?: string;
  readonly ipFamilies?: readonly string[];
  readonly ipFamilyPolicy?: string;
  readonly ports?: readonly string[];
  readonly annotations?: Readonly<Record<string, string>>;
  readonly ingress?: readonly IngressEntry[];
}

/** A recorded Event. */
interface RecordedEvent extends ServiceEvent {
  readonly service: string;
}

let clock = Date.parse('2026-01-01T00:00:00Z');

/** Builds a {@link SlimService} (a fresh uid, increasing creation times). */
export function service(spec: ServiceSpec, uid: string = randomUUID()): SlimService {
  clock += 1000;
  return {
    metadata: {
      name: spec.name,
      namespace: spec.namespace ?? 'default',
      uid,
      resourceVersion: '1',
      creationTimestamp: new Date(clock).toISOString(),
      annotations: { ...spec.annotations },
    },
    type: spec.type ?? 'LoadBalancer',
    loadBalancerClass: spec.loadBalancerClass,
    loadBalancerIp: spec.loadBalancerIp ?? '',
    ipFamilies: spec.ipFamilies ?? ['IPv4'],
    ipFamilyPolicy: spec.ipFamilyPolicy ?? 'SingleStack',
    ports: (spec.ports ?? ['TCP/80']).map((p) => {
      const [protocol, port] = p.split('/');
      return { protocol: protocol!, port: Number(port) };
    }),
    ingress: spec.ingress ?? [],
  };
}

/** What a test drives the controller with. */
export interface LbRig {
  readonly ctx: ControllerContext;
  readonly services: FakeInformer<SlimService>;
  readonly writer: LbKubeWriter;
  readonly events: RecordedEvent[];
  /** Status writes made. */
  statusWrites(): number;
  /** Live reads: the informer's objects, unless a test hides one. */
  readService(namespace: string, name: string): Promise<SlimService | undefined>;
  /** The Service's ingress addresses now. */
  ingressOf(name: string, namespace?: string): string[];
  setLeader(leading: boolean): void;
}

/** A context whose Kubernetes side is a Service informer fed by hand. */
export function createLbRig(args: {
  readonly datastore: Datastore;
  readonly ipam: IpamClient;
  readonly logger: Logger;
}): LbRig {
  const services = createFakeInformer<SlimService>();
  const events: RecordedEvent[] = [];
  const listeners: ((leading: boolean) => void)[] = [];
  let leader = true;
  let writes = 0;
  const current = (svc: SlimService): SlimService => {
    const now = services.get(svc.metadata.name, svc.metadata.namespace);
    if (!now || now.metadata.uid !== svc.metadata.uid)
      throw Object.assign(new Error('the test of /metadata/uid failed'), { code: 422 });
    return now;
  };
  const writer: LbKubeWriter = {
    async setIngress(svc, ingress) {
      const now = current(svc);
      writes++;
      services.set({
        ...now,
        metadata: {
          ...now.metadata,
          resourceVersion: String(Number(now.metadata.resourceVersion) + 1),
        },
        ingress: ingress.map((e) => ({ ...e, ipMode: 'VIP' })),
      });
    },
    async removeIngress(svc, ips) {
      const now = current(svc);
      writes++;
      services.set({ ...now, ingress: now.ingress.filter((e) => !ips.includes(e.ip ?? '')) });
    },
    async recordEvent(svc, event) {
      events.push({ ...event, service: `${svc.metadata.namespace}/${svc.metadata.name}` });
    },
  };
  const informers: SharedInformers = {
    pods: () => {
      throw new Error('no pods here');
    },
    nodes: () => {
      throw new Error('no nodes here');
    },
    get: ((key: string) => {
      if (key !== 'services') throw new Error(`no informer ${key}`);
      return services;
    }) as SharedInformers['get'],
  };
  const ctx: ControllerContext = {
    kube: {} as KubeApis,
    informers,
    datastore: args.datastore,
    ipam: args.ipam,
    registry: new Registry(),
    leadership: { isLeader: () => leader, onChange: (l) => void listeners.push(l) },
    logger: args.logger,
  };
  return {
    ctx,
    services,
    writer,
    events,
    statusWrites: () => writes,
    readService: async (namespace, name) => services.get(name, namespace),
    ingressOf: (name, namespace = 'default') =>
      (services.get(name, namespace)?.ingress ?? []).map((e) => e.ip ?? ''),
    setLeader(leading) {
      leader = leading;
      for (const l of listeners) l(leading);
    },
  };
}
