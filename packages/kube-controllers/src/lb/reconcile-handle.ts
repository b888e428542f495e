import type { IpamClient } from '@netledger/ipam-core';
import { goUtcTimestamp, isIpamError } from '@netledger/ipam-core';
import { cidrContainsIp, parseIp } from '@netledger/accounting';
import type { LbKubeWriter, ServiceEvent } from './lb-kube-writer.js';
import type { LbMetrics, LbServiceState } from './lb-metrics.js';
import type { Member, PlannedAssignment } from './plan-addresses.js';
import {
  RELEASE_REASON_TEXT,
  admitMembers,
  desireOf,
  ingressIpsFor,
  planAddresses,
} from './plan-addresses.js';
import type { IpFamily } from './lb-request.js';
import { parseLoadBalancerRequest } from './lb-request.js';
import type { LbState } from './lb-state.js';
import type { Logger } from '../logger.js';
import type { SlimService } from '@netledger/ipam-core/load-balancer';
import { serviceId } from './service-id.js';

/** The virtual host LoadBalancer addresses are assigned on (affinity `virtual:load-balancer`). */
const LOAD_BALANCER_HOST = 'load-balancer';

/** A handle could not be judged safely yet (a Service the informer has not caught up with): retry later. */
export class LbRetryLater extends Error {
  override readonly name = 'LbRetryLater';
}

/** What a reconcile works through. */
export interface LbPorts {
  readonly ipam: IpamClient;
  readonly kube: LbKubeWriter;
  /** A live read of a Service (the final re-validation before a whole handle is released). */
  readonly readService: (namespace: string, name: string) => Promise<SlimService | undefined>;
  /** The handle a Service's addresses belong to under the controller's rules (undefined: unmanaged). */
  readonly ownerHandleOf: (svc: SlimService) => string | undefined;
  readonly logger: Logger;
  readonly metrics: LbMetrics | undefined;
  readonly nowMs: () => number;
}

/** One handle to reconcile, with what the caches know. */
export interface LbReconcileInput {
  readonly handle: string;
  /** Managed Services whose addresses this handle holds. */
  readonly members: readonly SlimService[];
  /** Unmanaged Services that may still show this handle's addresses. */
  readonly candidates: readonly SlimService[];
  readonly state: LbState;
  /** Writes allowed: the leader, with the datastore unlocked. Otherwise only judged. */
  readonly write: boolean;
}

/** What a reconcile concluded. */
export interface LbReconcileOutcome {
  /** Per member (by `namespace/name`), where it stands. */
  readonly states: ReadonlyMap<string, LbServiceState>;
  /** Per Service looked at: its current problem (undefined when none). */
  readonly warnings: ReadonlyMap<string, { svc: SlimService; event: ServiceEvent | undefined }>;
  /** Normal Events to record (addresses set, released). */
  readonly notices: readonly { svc: SlimService; event: ServiceEvent }[];
  /** Addresses assigned and released by this reconcile. */
  readonly assigned: readonly string[];
  readonly released: readonly string[];
}

const stripMask = (cidr: string): string => cidr.split('/')[0]!;
const ingressIps = (svc: SlimService): string[] =>
  svc.ingress.map((e) => e.ip).filter((ip): ip is string => ip !== undefined);

/**
 * The Service shows exactly these addresses, in order, and nothing else (the API server's own
 * `ipMode` default aside).
 */
const showsExactly = (svc: SlimService, ips: readonly string[]): boolean =>
  svc.ingress.length === ips.length &&
  svc.ingress.every(
    (e, i) => e.ip === ips[i] && Object.keys(e).every((k) => k === 'ip' || k === 'ipMode'),
  );

/** Every LoadBalancer block the pools can hold: the per-host block cap the virtual host gets. */
function loadBalancerBlockCap(state: LbState): number {
  let n = 0;
  for (const p of state.pools.values()) {
    if (!p.loadBalancer) continue;
    const blockSize = p.pool.spec.blockSize ?? (p.family === 'IPv4' ? 26 : 122);
    n += 2 ** Math.min(30, Math.max(0, blockSize - p.cidr.prefix));
  }
  return Math.max(1, n);
}

/**
 * Reconciles one handle's addresses with its Services. With no member left (Services deleted,
 * no longer of type LoadBalancer, another class) every address goes: the Services named by the
 * allocations are first re-read from the API ({@link LbRetryLater} if one still maps to the
 * handle), statuses that show the addresses are cleaned, then `releaseByHandle`. Otherwise the
 * members' requests are validated (an invalid one is reported and changes nothing), a sharing
 * key's Services admitted (port clashes refused), and the addresses planned against what the
 * store holds: when the watch-fed view says a write is needed, the handle is first read from the
 * store (`ipsByHandle`), so nothing is assigned that is already held (calico#12503); releases come
 * first, then assignments (specific: `assignIp`; else `autoAssign` of one address of the family,
 * the handle capped at one per family), then the statuses. Without `write` it only judges.
 * A failed write throws (the caller backs the handle off and retries).
 */
export async function reconcileHandle(
  input: LbReconcileInput,
  ports: LbPorts,
): Promise<LbReconcileOutcome> {
  const { handle, state } = input;
  const states = new Map<string, LbServiceState>();
  const warnings = new Map<string, { svc: SlimService; event: ServiceEvent | undefined }>();
  const notices: { svc: SlimService; event: ServiceEvent }[] = [];
  const assigned: string[] = [];
  const released: string[] = [];
  const outcome = (): LbReconcileOutcome => ({ states, warnings, notices, assigned, released });
  const pools = [...state.pools.values()];
  const viewIps = state.ipsOf(handle);
  const log = ports.logger;

  if (input.members.length === 0) {
    await releaseHandle(input, ports, { viewIps, notices, released });
    return outcome();
  }

  const valid: Member[] = [];
  for (const svc of input.members) {
    const parsed = parseLoadBalancerRequest(svc, pools);
    const id = serviceId(svc);
    if (parsed.ok) {
      valid.push({ svc, request: parsed.request });
      continue;
    }
    states.set(id, 'invalid');
    warnings.set(id, {
      svc,
      event: { type: 'Warning', reason: 'InvalidLoadBalancerRequest', message: parsed.message },
    });
  }
  // An invalid request changes nothing: addresses and statuses stay as they are until it is fixed.
  if (valid.length === 0) return outcome();

  const { admitted, refused } = admitMembers(valid, viewIps);
  for (const r of refused) {
    const id = serviceId(r.svc);
    states.set(id, 'refused');
    warnings.set(id, {
      svc: r.svc,
      event: { type: 'Warning', reason: r.reason, message: r.message },
    });
  }
  const desire = desireOf(admitted);
  const preferred = admitted.flatMap((m) => ingressIps(m.svc));
  const noPools = !state.hasLoadBalancerPool();
  let plan = planAddresses({ desire, current: viewIps, pools, preferred });
  let held = viewIps;
  const addresses: Partial<Record<IpFamily, string>> = { ...plan.keep };
  const problems = new Map<IpFamily, Problem>();
  const needsWrite = plan.release.length > 0 || (!noPools && plan.assign.length > 0);
  if (needsWrite && input.write) {
    // The view may be behind the store (our own last write, a restart): ask the store.
    let stored: string[] = [];
    try {
      stored = await ports.ipam.ipsByHandle(handle);
    } catch (e) {
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    }
    held = [...new Set([...viewIps, ...stored])];
    plan = planAddresses({ desire, current: held, pools, preferred });
    for (const f of ['IPv4', 'IPv6'] as const) delete addresses[f];
    Object.assign(addresses, plan.keep);
    if (plan.release.length > 0) {
      const r = await ports.ipam.releaseIps(plan.release.map((x) => ({ address: x.ip, handle })));
      for (const x of plan.release) {
        if (r.unallocated.includes(x.ip)) continue;
        released.push(x.ip);
        ports.metrics?.released(x.why);
        log.log('info', 'released LoadBalancer address', {
          ip: x.ip,
          handle,
          reason: x.why,
          services: admitted.map((m) => serviceId(m.svc)).join(','),
        });
      }
    }
    if (!noPools) {
      const attrs = {
        service: admitted[0]!.svc.metadata.name,
        namespace: admitted[0]!.svc.metadata.namespace,
        type: admitted[0]!.svc.type,
        timestamp: goUtcTimestamp(ports.nowMs()),
      };
      for (const a of plan.assign) {
        const got = await assignOne(a, { handle, attrs, state, ports, problems });
        if (got === undefined) continue;
        addresses[a.family] = got;
        assigned.push(got);
        ports.metrics?.assigned(a.family);
        const pool = pools.find((p) => p.loadBalancer && cidrContainsIp(p.cidr, parseIp(got)));
        log.log('info', 'assigned LoadBalancer address', {
          ip: got,
          pool: pool?.name,
          handle,
          services: admitted.map((m) => serviceId(m.svc)).join(','),
        });
      }
    }
  }

  const sharingKey = admitted[0]!.request.sharingKey;
  for (const m of admitted) {
    const id = serviceId(m.svc);
    const want = ingressIpsFor(m, addresses);
    const missing = m.request.required.filter((f) => addresses[f] === undefined);
    states.set(id, missing.length === 0 ? 'assigned' : 'pending');
    const problem = missing.map((f) => problems.get(f)).find((p) => p !== undefined);
    warnings.set(id, { svc: m.svc, event: problem && { type: 'Warning', ...problem } });
    if (!input.write) continue;
    if (noPools) {
      // No LoadBalancer pool: another implementation may own the status; take back only ours.
      const ours = ingressIps(m.svc).filter((ip) => held.includes(ip));
      if (ours.length > 0) await ports.kube.removeIngress(m.svc, ours);
      continue;
    }
    if (showsExactly(m.svc, want)) continue;
    await ports.kube.setIngress(
      m.svc,
      want.map((ip) => ({ ip })),
    );
    log.log('debug', 'set LoadBalancer status', { service: id, ingress: want.join(',') });
    if (want.length > 0) {
      const others = admitted.filter((o) => o !== m).map((o) => o.svc.metadata.name);
      notices.push({
        svc: m.svc,
        event: {
          type: 'Normal',
          reason: 'AddressAssigned',
          message:
            `status.loadBalancer.ingress: ${want.join(', ')}` +
            (sharingKey !== undefined && others.length > 0
              ? ` (shared under sharing key "${sharingKey}" with ${others.join(', ')})`
              : ''),
        },
      });
    }
  }
  if (input.write) {
    const ours = new Set([...held, ...Object.values(addresses)]);
    for (const r of refused) {
      const shown = ingressIps(r.svc).filter((ip) => ours.has(ip));
      if (shown.length > 0) await ports.kube.removeIngress(r.svc, shown);
    }
  }
  for (const x of plan.release)
    for (const m of admitted)
      if (released.includes(x.ip) && ingressIps(m.svc).includes(x.ip))
        notices.push({
          svc: m.svc,
          event: {
            type: 'Normal',
            reason: 'AddressReleased',
            message: `released ${x.ip}: ${RELEASE_REASON_TEXT[x.why]}`,
          },
        });
  return outcome();
}

/** Why a family has no address: an Event's reason and message. */
interface Problem {
  readonly reason: string;
  readonly message: string;
}

/**
 * Assigns one planned address; undefined (with the problem recorded per family) when it cannot
 * be had. Errors other than a refusal throw.
 */
async function assignOne(
  a: PlannedAssignment,
  ctx: {
    handle: string;
    attrs: Record<string, string>;
    state: LbState;
    ports: LbPorts;
    problems: Map<IpFamily, Problem>;
  },
): Promise<string | undefined> {
  const { handle, attrs, state, ports } = ctx;
  if (a.ip !== undefined) {
    try {
      await ports.ipam.assignIp({
        ip: a.ip,
        hostname: LOAD_BALANCER_HOST,
        handleId: handle,
        attrs,
        intendedUse: 'LoadBalancer',
        maxAllocToHandlePerIpVersion: 1,
      });
      return a.ip;
    } catch (e) {
      if (isIpamError(e, 'AlreadyExists', 'IpInCooldown')) {
        const holder = state.byIp.get(a.ip);
        ctx.problems.set(a.family, {
          reason: 'AddressInUse',
          message: `${a.ip} is already assigned${holder ? ` (to service ${holder.namespace}/${holder.service})` : ''}`,
        });
        return undefined;
      }
      if (isIpamError(e, 'InvalidArgument', 'NoQualifiedPool')) {
        ctx.problems.set(a.family, {
          reason: 'AddressUnavailable',
          message: `${a.ip}: ${e.message.trim()}`,
        });
        return undefined;
      }
      throw e;
    }
  }
  const v4 = a.family === 'IPv4';
  try {
    const r = await ports.ipam.autoAssign({
      num4: v4 ? 1 : 0,
      num6: v4 ? 0 : 1,
      hostname: LOAD_BALANCER_HOST,
      handleId: handle,
      attrs,
      intendedUse: 'LoadBalancer',
      ...(a.pools && (v4 ? { ipv4Pools: a.pools } : { ipv6Pools: a.pools })),
      maxAllocToHandlePerIpVersion: 1,
      maxBlocksPerHost: loadBalancerBlockCap(state),
    });
    const got = (v4 ? r.v4 : r.v6).ips[0];
    if (got !== undefined) return stripMask(got);
    const msgs = (v4 ? r.v4 : r.v6).msgs;
    ctx.problems.set(a.family, {
      reason: 'NoAddressAvailable',
      message: `no ${a.family} address left in ${a.pools ? `pools ${a.pools.join(', ')}` : 'the LoadBalancer pools'}${msgs.length > 0 ? ` (${msgs.join('; ')})` : ''}`,
    });
    return undefined;
  } catch (e) {
    if (isIpamError(e, 'NoQualifiedPool', 'BlockLimit')) {
      ctx.problems.set(a.family, {
        reason: 'NoAddressAvailable',
        message: `no ${a.family} address: ${e.message.trim()}`,
      });
      return undefined;
    }
    throw e;
  }
}

/** Releases a handle no Service holds any more, after re-reading the Services it names. */
async function releaseHandle(
  input: LbReconcileInput,
  ports: LbPorts,
  out: {
    viewIps: readonly string[];
    notices: { svc: SlimService; event: ServiceEvent }[];
    released: string[];
  },
): Promise<void> {
  if (!input.write) return;
  const { handle, state } = input;
  let stored: string[] = [];
  try {
    stored = await ports.ipam.ipsByHandle(handle);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
    if (out.viewIps.length === 0) return;
  }
  const ips = [...new Set([...out.viewIps, ...stored])];
  // The final re-validation: the Services named by the allocations and the ones showing the
  // addresses, read from the API itself, must not map to this handle any more.
  const named = new Map<string, { namespace: string; name: string }>();
  for (const a of state.byHandle.get(handle)?.values() ?? [])
    named.set(`${a.namespace}/${a.service}`, { namespace: a.namespace, name: a.service });
  for (const c of input.candidates)
    named.set(serviceId(c), { namespace: c.metadata.namespace, name: c.metadata.name });
  const live: SlimService[] = [];
  for (const { namespace, name } of named.values()) {
    if (namespace === '' || name === '') continue;
    const svc = await ports.readService(namespace, name);
    if (svc && ports.ownerHandleOf(svc) === handle)
      throw new LbRetryLater(`service ${namespace}/${name} still holds handle ${handle}`);
    // Told why below, if netledger no longer manages it at all (not re-created, not re-keyed).
    if (svc && ports.ownerHandleOf(svc) === undefined) live.push(svc);
  }
  for (const c of input.candidates) {
    const shown = ingressIps(c).filter((ip) => ips.includes(ip));
    if (shown.length > 0) await ports.kube.removeIngress(c, shown);
  }
  try {
    await ports.ipam.releaseByHandle(handle);
  } catch (e) {
    if (!isIpamError(e, 'DoesNotExist')) throw e;
  }
  // Allocations the view shows but the handle object does not list (a handle lost or behind).
  const leftover = out.viewIps.filter((ip) => !stored.includes(ip));
  if (leftover.length > 0)
    await ports.ipam.releaseIps(leftover.map((address) => ({ address, handle })));
  if (ips.length === 0) return;
  out.released.push(...ips);
  for (let i = 0; i < ips.length; i++) ports.metrics?.released('service-gone');
  ports.logger.log('info', 'released LoadBalancer addresses', {
    handle,
    ips: ips.join(','),
    reason: 'no Service holds them',
    services: [...named.keys()].join(','),
  });
  // The Services that still exist (no longer of type LoadBalancer, another class) hear why.
  for (const svc of live)
    out.notices.push({
      svc,
      event: {
        type: 'Normal',
        reason: 'AddressReleased',
        message: `released ${ips.join(', ')}: the Service no longer gets LoadBalancer addresses from netledger`,
      },
    });
}
