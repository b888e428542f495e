import type { IpamClient } from '@netledger/ipam-core';
import { goUtcTimestamp, isIpamError } from '@netledger/ipam-core';
import { cidrContainsIp, parseIp } from '@netledger/accounting';
import type { LbKubeWriter, ServiceEvent } from './lb-kube-writer.js';
import type { LbMetrics, LbServiceState } from './lb-metrics.js';
import type { AddressPlan, Member } from './plan-addresses.js';
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
import type { Problem } from './assign-address.js';
import { assignOne } from './assign-address.js';
import { releaseHandle } from './release-handle.js';
import { ingressIps, showsExactly } from './service-ingress.js';

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
  const out: Outcome = {
    states: new Map(),
    warnings: new Map(),
    notices: [],
    assigned: [],
    released: [],
  };
  const viewIps = input.state.ipsOf(input.handle);
  if (input.members.length === 0) {
    await releaseHandle(input, ports, { viewIps, notices: out.notices, released: out.released });
    return out;
  }
  const valid = validMembers(input, out);
  // An invalid request changes nothing: addresses and statuses stay as they are until it is fixed.
  if (valid.length === 0) return out;
  const { admitted, refused } = admitMembers(valid, viewIps);
  for (const r of refused) {
    const id = serviceId(r.svc);
    out.states.set(id, 'refused');
    out.warnings.set(id, {
      svc: r.svc,
      event: { type: 'Warning', reason: r.reason, message: r.message },
    });
  }
  const addressing = await addressHandle({ input, ports, admitted, viewIps, out });
  await showAddresses({ input, ports, admitted, addressing, out });
  if (input.write) {
    const ours = new Set([...addressing.held, ...Object.values(addressing.addresses)]);
    for (const r of refused) {
      const shown = ingressIps(r.svc).filter((ip) => ours.has(ip));
      if (shown.length > 0) await ports.kube.removeIngress(r.svc, shown);
    }
  }
  for (const x of addressing.plan.release)
    for (const m of admitted)
      if (out.released.includes(x.ip) && ingressIps(m.svc).includes(x.ip))
        out.notices.push({
          svc: m.svc,
          event: {
            type: 'Normal',
            reason: 'AddressReleased',
            message: `released ${x.ip}: ${RELEASE_REASON_TEXT[x.why]}`,
          },
        });
  return out;
}

/** The outcome as it is built up. */
interface Outcome {
  readonly states: Map<string, LbServiceState>;
  readonly warnings: Map<string, { svc: SlimService; event: ServiceEvent | undefined }>;
  readonly notices: { svc: SlimService; event: ServiceEvent }[];
  readonly assigned: string[];
  readonly released: string[];
}

/** The members whose requests are valid; the others are marked invalid, with a Warning. */
function validMembers(input: LbReconcileInput, out: Outcome): Member[] {
  const pools = [...input.state.pools.values()];
  const valid: Member[] = [];
  for (const svc of input.members) {
    const parsed = parseLoadBalancerRequest(svc, pools);
    const id = serviceId(svc);
    if (parsed.ok) {
      valid.push({ svc, request: parsed.request });
      continue;
    }
    out.states.set(id, 'invalid');
    out.warnings.set(id, {
      svc,
      event: { type: 'Warning', reason: 'InvalidLoadBalancerRequest', message: parsed.message },
    });
  }
  return valid;
}

/** Where the handle's addresses ended up. */
interface Addressing {
  readonly plan: AddressPlan;
  /** What the handle held before this reconcile (view and, if read, store). */
  readonly held: readonly string[];
  /** The address per family the members are to show. */
  readonly addresses: Partial<Record<IpFamily, string>>;
  /** Why a family has no address. */
  readonly problems: ReadonlyMap<IpFamily, Problem>;
  /** No LoadBalancer pool exists. */
  readonly noPools: boolean;
}

/**
 * Plans the admitted members' addresses against the view and, when a write is needed and allowed,
 * against the store (the view may be behind it); releases first, then assigns.
 */
async function addressHandle(args: {
  input: LbReconcileInput;
  ports: LbPorts;
  admitted: readonly Member[];
  viewIps: readonly string[];
  out: Outcome;
}): Promise<Addressing> {
  const { input, ports, admitted, viewIps } = args;
  const { handle, state } = input;
  const pools = [...state.pools.values()];
  const desire = desireOf(admitted);
  const preferred = admitted.flatMap((m) => ingressIps(m.svc));
  const noPools = !state.hasLoadBalancerPool();
  let plan = planAddresses({ desire, current: viewIps, pools, preferred });
  let held = viewIps;
  const addresses: Partial<Record<IpFamily, string>> = { ...plan.keep };
  const problems = new Map<IpFamily, Problem>();
  const needsWrite = plan.release.length > 0 || (!noPools && plan.assign.length > 0);
  if (!needsWrite || !input.write) return { plan, held, addresses, problems, noPools };
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
  await releasePlanned({ ...args, plan });
  if (!noPools) await assignPlanned({ ...args, plan, addresses, problems });
  return { plan, held, addresses, problems, noPools };
}

/** Releases the plan's addresses the members no longer want. */
async function releasePlanned(args: {
  input: LbReconcileInput;
  ports: LbPorts;
  admitted: readonly Member[];
  plan: AddressPlan;
  out: Outcome;
}): Promise<void> {
  const { ports, plan, admitted, out } = args;
  const handle = args.input.handle;
  if (plan.release.length === 0) return;
  const r = await ports.ipam.releaseIps(plan.release.map((x) => ({ address: x.ip, handle })));
  for (const x of plan.release) {
    if (r.unallocated.includes(x.ip)) continue;
    out.released.push(x.ip);
    ports.metrics?.released(x.why);
    ports.logger.log('info', 'released LoadBalancer address', {
      ip: x.ip,
      handle,
      reason: x.why,
      services: admitted.map((m) => serviceId(m.svc)).join(','),
    });
  }
}

/** Assigns the plan's addresses, with Calico's attributes; a family that gets none has a problem. */
async function assignPlanned(args: {
  input: LbReconcileInput;
  ports: LbPorts;
  admitted: readonly Member[];
  plan: AddressPlan;
  addresses: Partial<Record<IpFamily, string>>;
  problems: Map<IpFamily, Problem>;
  out: Outcome;
}): Promise<void> {
  const { ports, plan, admitted, addresses, problems, out } = args;
  const { handle, state } = args.input;
  const first = admitted[0]!.svc;
  const attrs = {
    service: first.metadata.name,
    namespace: first.metadata.namespace,
    type: first.type,
    timestamp: goUtcTimestamp(ports.nowMs()),
  };
  for (const a of plan.assign) {
    const got = await assignOne(a, { handle, attrs, state, ports, problems });
    if (got === undefined) continue;
    addresses[a.family] = got;
    out.assigned.push(got);
    ports.metrics?.assigned(a.family);
    const pool = [...state.pools.values()].find(
      (p) => p.loadBalancer && cidrContainsIp(p.cidr, parseIp(got)),
    );
    ports.logger.log('info', 'assigned LoadBalancer address', {
      ip: got,
      pool: pool?.name,
      handle,
      services: admitted.map((m) => serviceId(m.svc)).join(','),
    });
  }
}

/**
 * Judges each admitted member (assigned or pending, with its problem) and, when writing, sets its
 * status to its addresses (with an Event), or with no LoadBalancer pool takes back only ours.
 */
async function showAddresses(args: {
  input: LbReconcileInput;
  ports: LbPorts;
  admitted: readonly Member[];
  addressing: Addressing;
  out: Outcome;
}): Promise<void> {
  const { input, ports, admitted, out } = args;
  const { addresses, problems, held, noPools } = args.addressing;
  const sharingKey = admitted[0]!.request.sharingKey;
  for (const m of admitted) {
    const id = serviceId(m.svc);
    const want = ingressIpsFor(m, addresses);
    const missing = m.request.required.filter((f) => addresses[f] === undefined);
    out.states.set(id, missing.length === 0 ? 'assigned' : 'pending');
    const problem = missing.map((f) => problems.get(f)).find((p) => p !== undefined);
    out.warnings.set(id, { svc: m.svc, event: problem && { type: 'Warning', ...problem } });
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
    ports.logger.log('debug', 'set LoadBalancer status', { service: id, ingress: want.join(',') });
    if (want.length === 0) continue;
    const others = admitted.filter((o) => o !== m).map((o) => o.svc.metadata.name);
    out.notices.push({
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
