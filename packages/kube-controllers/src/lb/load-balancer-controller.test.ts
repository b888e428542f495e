import { afterEach, describe, expect, it } from 'vitest';
import { createIpamClient, createMemoryDatastore } from '@netledger/ipam-core';
import type { Datastore, IpamClient } from '@netledger/ipam-core';
import { Registry } from 'prom-client';
import { blockAllocations } from '@netledger/ipam-core/block';
import { loadBalancerHandle, sharedAddressHandle } from './lb-handle.js';
import { LOAD_BALANCER_CLASS } from '@netledger/ipam-core/load-balancer';
import { loadBalancerSettings } from './lb-settings.js';
import type { LoadBalancerSettings } from './lb-settings.js';
import { createLoadBalancerController } from './load-balancer-controller.js';
import type { LoadBalancerController } from './load-balancer-controller.js';
import type { LogFields, Logger } from '../logger.js';
import { SERVICE_ANNOTATIONS } from '@netledger/ipam-core/load-balancer';
import type { LbRig, ServiceSpec } from './test-lb-rig.js';
import { createLbRig, service } from './test-lb-rig.js';

// The controller on the memory store (its real watch) with a hand-fed Service informer.
let ds: Datastore;
let ipam: IpamClient;
let rig: LbRig;
let lines: { msg: string; fields: LogFields }[];
/** The metrics registry of the last controller started (each one its own, as each process). */
let registry: Registry;
const controllers: LoadBalancerController[] = [];

afterEach(async () => {
  for (const c of controllers.splice(0)) await c.stop();
  await ds?.close();
});

const logger: Logger = { log: (_l, msg, fields = {}) => void lines.push({ msg, fields }) };

async function setup(pools: { name: string; cidr: string; manual?: boolean }[]): Promise<void> {
  ds = createMemoryDatastore();
  ipam = createIpamClient({ datastore: ds });
  lines = [];
  for (const p of pools)
    await ipam.pools.create({
      metadata: { name: p.name },
      spec: {
        cidr: p.cidr,
        blockSize: p.cidr.includes(':') ? 124 : 28,
        allowedUses: ['LoadBalancer'],
        ...(p.manual && { assignmentMode: 'Manual' }),
      },
    });
  rig = createLbRig({ datastore: ds, ipam, logger });
}

async function start(
  overrides: Partial<LoadBalancerSettings> = {},
): Promise<LoadBalancerController> {
  const c = createLoadBalancerController({
    settings: loadBalancerSettings({ backoffBaseMs: 20, backoffMaxMs: 200, ...overrides }),
    kubeWriter: rig.writer,
    readService: (ns, name) => rig.readService(ns, name),
  });
  controllers.push(c);
  registry = new Registry();
  await c.start({ ...rig.ctx, registry });
  return c;
}

const add = (spec: ServiceSpec) => {
  const s = service(spec);
  rig.services.set(s);
  return s;
};

/** Every LoadBalancer allocation in the store: ip -> handle. */
async function allocations(): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const kv of (await ds.list({ kind: 'IPAMBlock' })).items)
    for (const a of blockAllocations(kv.value))
      if (!a.coolingDown && a.handle !== undefined) out.set(a.ip, a.handle);
  return out;
}

const assignedLines = () => lines.filter((l) => l.msg === 'assigned LoadBalancer address');

/** Resolves once `ok()` holds, checked now and after each reconcile (no timer polling). */
function until(
  c: LoadBalancerController,
  ok: () => boolean | Promise<boolean>,
  what: string,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      c.events.off('reconciled', check);
      reject(new Error(`timed out waiting for ${what}`));
    }, 10_000);
    const check = (): void =>
      void Promise.resolve(ok()).then((done) => {
        if (!done) return;
        clearTimeout(timer);
        c.events.off('reconciled', check);
        resolve();
      }, reject);
    c.events.on('reconciled', check);
    check();
  });
}

describe('createLoadBalancerController', () => {
  it('gives a single-stack Service one address, with Calico handle and attributes, status and an Event', async () => {
    await setup([{ name: 'lb4', cidr: '10.10.0.0/24' }]);
    const c = await start();
    const web = add({ name: 'web' });
    await c.idle();
    const ips = rig.ingressOf('web');
    expect(ips).toHaveLength(1);
    expect(ips[0]).toMatch(/^10\.10\.0\./);
    const attrs = await ipam.getAssignmentAttributes(ips[0]!);
    expect(attrs.handleId).toBe(
      loadBalancerHandle({ name: 'web', namespace: 'default', uid: web.metadata.uid }),
    );
    expect(attrs.activeOwnerAttrs).toMatchObject({
      service: 'web',
      namespace: 'default',
      type: 'LoadBalancer',
    });
    expect(attrs.activeOwnerAttrs?.timestamp).toMatch(
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? \+0000 UTC$/,
    );
    expect(await ipam.ipsByHandle(attrs.handleId!)).toEqual(ips);
    expect(rig.events).toContainEqual(
      expect.objectContaining({
        service: 'default/web',
        type: 'Normal',
        reason: 'AddressAssigned',
      }),
    );
    // The API's status update comes back through the informer: nothing more is written.
    const writes = rig.statusWrites();
    rig.services.set({ ...rig.services.get('web', 'default')! });
    await c.idle();
    expect(rig.statusWrites()).toBe(writes);
    expect(await allocations()).toEqual(new Map([[ips[0]!, attrs.handleId!]]));
  });

  it.each([
    ['RequireDualStack', ['IPv4', 'IPv6'], true, ['IPv4', 'IPv6'], undefined],
    ['PreferDualStack', ['IPv4', 'IPv6'], true, ['IPv4', 'IPv6'], undefined],
    ['PreferDualStack', ['IPv6', 'IPv4'], true, ['IPv6', 'IPv4'], undefined],
    ['SingleStack', ['IPv6'], true, ['IPv6'], undefined],
    ['PreferDualStack', ['IPv4', 'IPv6'], false, ['IPv4'], undefined],
    ['RequireDualStack', ['IPv4', 'IPv6'], false, ['IPv4'], 'NoAddressAvailable'],
  ])(
    '%s %j with an IPv6 pool: %s gets one address per family %j (warning: %s)',
    async (policy, families, v6Pool, got, warning) => {
      await setup([
        { name: 'lb4', cidr: '10.10.0.0/24' },
        ...(v6Pool ? [{ name: 'lb6', cidr: 'fd00:10::/120' }] : []),
      ]);
      const c = await start();
      add({ name: 'dual', ipFamilies: families, ipFamilyPolicy: policy });
      await c.idle();
      const ips = rig.ingressOf('dual');
      expect(ips.map((ip) => (ip.includes(':') ? 'IPv6' : 'IPv4'))).toEqual(got);
      expect((await allocations()).size).toBe(got.length);
      const warnings = rig.events.filter((e) => e.type === 'Warning').map((e) => e.reason);
      expect(warnings).toEqual(warning ? [warning] : []);
    },
  );

  it('keeps every address across restarts and cold-starts 200 Services without assigning twice', async () => {
    await setup([{ name: 'lb4', cidr: '10.20.0.0/22' }]);
    for (let i = 0; i < 200; i++) add({ name: `s${i}` });
    const first = await start();
    await first.idle();
    const before = await allocations();
    expect(before.size).toBe(200);
    expect(new Set(before.values()).size).toBe(200);
    expect(assignedLines()).toHaveLength(200);
    await first.stop();
    // A new process: its view starts empty and every Service arrives before the blocks are read.
    lines = [];
    const writes = rig.statusWrites();
    const second = await start();
    await second.idle();
    expect(assignedLines()).toEqual([]);
    expect(await allocations()).toEqual(before);
    expect(rig.statusWrites()).toBe(writes);
    for (let i = 0; i < 200; i++) expect(rig.ingressOf(`s${i}`)).toHaveLength(1);
  });

  it('releases the second IPv4 address a single-stack Service was given (calico#12503), keeping the one it shows', async () => {
    await setup([{ name: 'lb4', cidr: '10.30.0.0/24' }]);
    const svc = service({ name: 'twice' });
    const handle = loadBalancerHandle({
      name: 'twice',
      namespace: 'default',
      uid: svc.metadata.uid,
    });
    const attrs = { service: 'twice', namespace: 'default', type: 'LoadBalancer' };
    for (const ip of ['10.30.0.1', '10.30.0.9'])
      await ipam.assignIp({
        ip,
        hostname: 'load-balancer',
        handleId: handle,
        attrs,
        intendedUse: 'LoadBalancer',
      });
    rig.services.set({ ...svc, ingress: [{ ip: '10.30.0.9' }] });
    const c = await start();
    await c.idle();
    expect(rig.ingressOf('twice')).toEqual(['10.30.0.9']);
    expect(await ipam.ipsByHandle(handle)).toEqual(['10.30.0.9']);
    expect(lines).toContainEqual(
      expect.objectContaining({
        msg: 'released LoadBalancer address',
        fields: expect.objectContaining({ ip: '10.30.0.1', reason: 'duplicate' }),
      }),
    );
  });

  it('assigns specific addresses from the annotation or spec.loadBalancerIP, and says when one is taken', async () => {
    await setup([
      { name: 'lb4', cidr: '10.40.0.0/24' },
      { name: 'lb6', cidr: 'fd00:40::/120' },
    ]);
    const c = await start();
    add({
      name: 'pinned',
      ipFamilies: ['IPv4', 'IPv6'],
      ipFamilyPolicy: 'RequireDualStack',
      annotations: { [SERVICE_ANNOTATIONS.loadBalancerIps]: '["10.40.0.7","fd00:40::7"]' },
    });
    add({ name: 'legacy', loadBalancerIp: '10.40.0.8' });
    await c.idle();
    expect(rig.ingressOf('pinned')).toEqual(['10.40.0.7', 'fd00:40::7']);
    expect(rig.ingressOf('legacy')).toEqual(['10.40.0.8']);
    add({ name: 'thief', loadBalancerIp: '10.40.0.8' });
    await c.idle();
    expect(rig.ingressOf('thief')).toEqual([]);
    expect(rig.ingressOf('legacy')).toEqual(['10.40.0.8']);
    expect(rig.events).toContainEqual({
      service: 'default/thief',
      type: 'Warning',
      reason: 'AddressInUse',
      message: '10.40.0.8 is already assigned (to service default/legacy)',
    });
    // A new address asked for: the old one goes, the new one comes.
    const legacy = rig.services.get('legacy', 'default')!;
    rig.services.set({ ...legacy, loadBalancerIp: '10.40.0.20' });
    await c.idle();
    expect(rig.ingressOf('legacy')).toEqual(['10.40.0.20']);
    // ...and the thief, told the address was taken, gets it once it is free.
    await until(c, () => rig.ingressOf('thief')[0] === '10.40.0.8', 'the freed address');
    expect(await allocations()).toEqual(
      new Map([
        ['10.40.0.7', expect.stringMatching(/^lb-/)],
        ['10.40.0.8', (await ipam.getAssignmentAttributes('10.40.0.8')).handleId],
        ['10.40.0.20', (await ipam.getAssignmentAttributes('10.40.0.20')).handleId],
        ['fd00:40::7', expect.stringMatching(/^lb-/)],
      ]),
    );
    expect((await ipam.getAssignmentAttributes('10.40.0.8')).activeOwnerAttrs?.service).toBe(
      'thief',
    );
  });

  it('shares one address among the Services of a sharing key with disjoint ports, refusing a port clash with an Event', async () => {
    await setup([{ name: 'lb4', cidr: '10.50.0.0/24' }]);
    const c = await start();
    const key = { [SERVICE_ANNOTATIONS.sharingKey]: 'front' };
    add({ name: 'http', annotations: key, ports: ['TCP/80', 'TCP/443'] });
    add({ name: 'dns', annotations: key, ports: ['UDP/53', 'TCP/53'] });
    await c.idle();
    const [ip] = rig.ingressOf('http');
    expect(ip).toBeDefined();
    expect(rig.ingressOf('dns')).toEqual([ip]);
    const handle = sharedAddressHandle({ namespace: 'default', sharingKey: 'front' });
    expect(await ipam.ipsByHandle(handle)).toEqual([ip]);
    add({ name: 'other-web', annotations: key, ports: ['TCP/443'] });
    await c.idle();
    expect(rig.ingressOf('other-web')).toEqual([]);
    expect(rig.events).toContainEqual({
      service: 'default/other-web',
      type: 'Warning',
      reason: 'PortClash',
      message:
        'not sharing the address of sharing key "front": port TCP/443 already used by service http',
    });
    // The same refusal is not repeated on every update.
    rig.services.set({ ...rig.services.get('other-web', 'default')! });
    await c.idle();
    expect(rig.events.filter((e) => e.reason === 'PortClash')).toHaveLength(1);
    // The first one goes: the others keep the address, and the refused one now fits.
    rig.services.delete('http', 'default');
    await c.idle();
    expect(rig.ingressOf('dns')).toEqual([ip]);
    expect(rig.ingressOf('other-web')).toEqual([ip]);
    expect(await ipam.ipsByHandle(handle)).toEqual([ip]);
    rig.services.delete('dns', 'default');
    rig.services.delete('other-web', 'default');
    await c.idle();
    expect(await allocations()).toEqual(new Map());
  });

  it('releases on delete and on a type change, cleaning the status', async () => {
    await setup([{ name: 'lb4', cidr: '10.60.0.0/24' }]);
    const c = await start();
    add({ name: 'gone' });
    add({ name: 'changed' });
    await c.idle();
    expect((await allocations()).size).toBe(2);
    const changedIp = rig.ingressOf('changed')[0]!;
    rig.services.delete('gone', 'default');
    const changed = rig.services.get('changed', 'default')!;
    rig.services.set({ ...changed, type: 'ClusterIP' });
    await c.idle();
    expect(await allocations()).toEqual(new Map());
    expect(rig.ingressOf('changed')).toEqual([]);
    expect(rig.events).toContainEqual(
      expect.objectContaining({
        service: 'default/changed',
        reason: 'AddressReleased',
        message: `released ${changedIp}: the Service no longer gets LoadBalancer addresses from netledger`,
      }),
    );
  });

  it('does not release a Service the informer has not caught up with (the live read still maps it)', async () => {
    await setup([{ name: 'lb4', cidr: '10.61.0.0/24' }]);
    const c = await start();
    const s = add({ name: 'lagging' });
    await c.idle();
    const ip = rig.ingressOf('lagging')[0]!;
    // The informer says deleted, the API still has it: the release waits.
    const live = rig.services.get('lagging', 'default')!;
    const realRead = rig.readService;
    rig.readService = async (ns, name) => (name === 'lagging' ? live : realRead(ns, name));
    const deferred = new Promise<unknown>((resolve) =>
      c.events.once('deferred', (d: { error: unknown }) => resolve(d.error)),
    );
    rig.services.delete('lagging', 'default');
    expect(await deferred).toMatchObject({ name: 'LbRetryLater' });
    expect((await ipam.getAssignmentAttributes(ip)).handleId).toBe(
      loadBalancerHandle({ name: 'lagging', namespace: 'default', uid: s.metadata.uid }),
    );
    rig.readService = realRead;
    await until(
      c,
      () =>
        ipam.getAssignmentAttributes(ip).then(
          () => false,
          () => true,
        ),
      'the release after the retry',
    );
  });

  it('releases addresses of a deleted pool and assigns from another', async () => {
    await setup([
      { name: 'old', cidr: '10.70.0.0/24' },
      { name: 'new', cidr: '10.71.0.0/24' },
    ]);
    const c = await start();
    add({ name: 'moved', annotations: { [SERVICE_ANNOTATIONS.ipv4Pools]: '["old"]' } });
    await c.idle();
    expect(rig.ingressOf('moved')[0]).toMatch(/^10\.70\./);
    const moved = rig.services.get('moved', 'default')!;
    rig.services.set({ ...moved, metadata: { ...moved.metadata, annotations: {} } });
    await ipam.pools.delete('old');
    await c.idle();
    expect(rig.ingressOf('moved')[0]).toMatch(/^10\.71\./);
    const all = await allocations();
    expect([...all.keys()].every((ip) => ip.startsWith('10.71.'))).toBe(true);
    expect(all.size).toBe(1);
  });

  it('moves an address out of a Manual pool nobody names any more', async () => {
    await setup([
      { name: 'auto', cidr: '10.72.0.0/24' },
      { name: 'manual', cidr: '10.73.0.0/24', manual: true },
    ]);
    const c = await start();
    add({ name: 'm', annotations: { [SERVICE_ANNOTATIONS.ipv4Pools]: '["manual"]' } });
    await c.idle();
    expect(rig.ingressOf('m')[0]).toMatch(/^10\.73\./);
    const m = rig.services.get('m', 'default')!;
    rig.services.set({ ...m, metadata: { ...m.metadata, annotations: {} } });
    await c.idle();
    expect(rig.ingressOf('m')[0]).toMatch(/^10\.72\./);
  });

  it("leaves other classes' Services alone and honours RequestedServicesOnly", async () => {
    await setup([{ name: 'lb4', cidr: '10.80.0.0/24' }]);
    const c = await start({ assignIps: 'RequestedServicesOnly' });
    add({ name: 'foreign', loadBalancerClass: 'example.com/lb', ingress: [{ ip: '192.0.2.1' }] });
    add({ name: 'unasked' });
    add({ name: 'ours', loadBalancerClass: LOAD_BALANCER_CLASS });
    add({ name: 'asked', annotations: { [SERVICE_ANNOTATIONS.ipv4Pools]: '["lb4"]' } });
    await c.idle();
    expect(rig.ingressOf('foreign')).toEqual(['192.0.2.1']);
    expect(rig.ingressOf('unasked')).toEqual([]);
    expect(rig.ingressOf('ours')).toHaveLength(1);
    expect(rig.ingressOf('asked')).toHaveLength(1);
    expect((await allocations()).size).toBe(2);
  });

  it('reports an invalid request with an Event and changes nothing', async () => {
    await setup([{ name: 'lb4', cidr: '10.81.0.0/24' }]);
    const c = await start();
    add({ name: 'bad', annotations: { [SERVICE_ANNOTATIONS.ipv4Pools]: '["nope"]' } });
    await c.idle();
    expect(rig.ingressOf('bad')).toEqual([]);
    expect(await allocations()).toEqual(new Map());
    expect(rig.events).toEqual([
      {
        service: 'default/bad',
        type: 'Warning',
        reason: 'InvalidLoadBalancerRequest',
        message: 'projectcalico.org/ipv4pools: no IP pool named "nope"',
      },
    ]);
  });

  it('as a follower judges but writes nothing; once leading it assigns', async () => {
    await setup([{ name: 'lb4', cidr: '10.82.0.0/24' }]);
    rig.setLeader(false);
    const c = await start();
    add({ name: 'waiting' });
    await c.idle();
    expect(await allocations()).toEqual(new Map());
    expect(rig.statusWrites()).toBe(0);
    expect(rig.events).toEqual([]);
    rig.setLeader(true);
    await c.idle();
    expect(rig.ingressOf('waiting')).toHaveLength(1);
  });

  it('in auto mode waits for a LoadBalancer pool before it watches Services', async () => {
    await setup([]);
    const c = await start();
    add({ name: 'early' });
    await c.idle();
    expect(c.isActive()).toBe(false);
    expect(c.readiness()).toEqual({ ok: true, detail: 'idle: no LoadBalancer IP pool' });
    const active = new Promise<void>((resolve) => c.events.once('active', resolve));
    await ipam.pools.create({
      metadata: { name: 'late' },
      spec: { cidr: '10.83.0.0/24', blockSize: 28, allowedUses: ['LoadBalancer'] },
    });
    await active;
    await c.idle();
    expect(rig.ingressOf('early')).toHaveLength(1);
    expect(c.readiness()).toEqual({ ok: true });
  });

  it('serves LoadBalancer pool metrics computed like the workload pools', async () => {
    await setup([{ name: 'lb4', cidr: '10.84.0.0/24' }]);
    await ipam.reservations.create({
      metadata: { name: 'r' },
      spec: { reservedCIDRs: ['10.84.0.240/28'] },
    });
    const c = await start();
    add({ name: 'a' });
    add({ name: 'b', annotations: { [SERVICE_ANNOTATIONS.ipv4Pools]: '["nope"]' } });
    await c.idle();
    c.beforeScrape!();
    const text = await registry.metrics();
    const value = (series: string): number =>
      Number(new RegExp(`^${series.replace(/[{}"]/g, '\\$&')} (\\S+)$`, 'm').exec(text)?.[1]);
    const [u] = await ipam.getUtilization({ pools: ['lb4'] });
    expect(value('ipam_loadbalancer_ippool_size{ippool="lb4"}')).toBe(256);
    expect(value('ipam_loadbalancer_ippool_reserved{ippool="lb4"}')).toBe(16);
    expect(value('ipam_loadbalancer_ippool_available{ippool="lb4"}')).toBe(Number(u!.available));
    expect(value('ipam_loadbalancer_allocations_in_use{ippool="lb4"}')).toBe(1);
    expect(value('ipam_loadbalancer_blocks{ippool="lb4"}')).toBe(1);
    expect(value('ipam_loadbalancer_ippool_free_blocks{ippool="lb4"}')).toBe(15);
    expect(value('ipam_loadbalancer_services{state="assigned"}')).toBe(1);
    expect(value('ipam_loadbalancer_services{state="invalid"}')).toBe(1);
  });
});
