import { setTimeout as sleep } from 'node:timers/promises';
import { isIpamError } from '@netledger/ipam-core';
import type { IpamClient } from '@netledger/ipam-core';
import { bareAddress, libCall } from './call-result.js';
import type { CallResult } from './call-result.js';
import { cniCall } from './cni-call.js';
import { retryUntilDone } from './retry-until-done.js';
import type { HeldHandle, WorkerEvent, WorkerPlan } from './worker-plan.js';

/** What kind of call a host is in (a crash point counts only the writes of one kind). */
export type HostPhase = 'assign' | 'release' | 'drain';

/** One host process: its plan, client, event sink, the handles it holds and the call it is in. */
export interface HostState {
  readonly plan: WorkerPlan;
  readonly client: IpamClient;
  readonly emit: (e: WorkerEvent) => void;
  readonly held: Map<string, HeldHandle>;
  readonly phase: { current: HostPhase };
}

/** One assign or release, by container and path. */
interface HostCall {
  readonly action: 'assign' | 'release';
  readonly containerId: string;
  readonly via: 'cni' | 'lib';
}

/** A runtime retries a failed DEL up to this many times in all. */
const RELEASE_ATTEMPTS = 100;

/** `<network>.<containerID>`, as the plugin makes a handle. */
function handleOf(plan: Pick<WorkerPlan, 'network'>, containerId: string): string {
  return `${plan.network}.${containerId}`;
}

async function assign(
  host: HostState,
  containerId: string,
  via: 'cni' | 'lib',
): Promise<CallResult> {
  const { plan, client } = host;
  if (via === 'cni') return cniCall(plan, 'ADD', containerId);
  return libCall(async () => {
    const { v4 } = await client.autoAssign({
      num4: 1,
      hostname: plan.host,
      handleId: handleOf(plan, containerId),
      attrs: { node: plan.host, namespace: plan.namespace, pod: containerId },
      intendedUse: 'Workload',
    });
    return v4.ips.map(bareAddress);
  });
}

async function release(host: HostState, h: HeldHandle): Promise<CallResult> {
  if (h.via === 'cni') return cniCall(host.plan, 'DEL', h.containerId);
  return libCall(async () => {
    try {
      await host.client.releaseByHandle(handleOf(host.plan, h.containerId));
    } catch (e) {
      // Released already (a retry after a crash that came after the release): done, as a CNI DEL
      // of nothing is.
      if (!isIpamError(e, 'DoesNotExist')) throw e;
    }
    return undefined;
  });
}

/**
 * Makes one call: prints `started`, then `assigned`, `released` or `failed`, and keeps `held` up
 * to date; resolves whether it succeeded. A short assign (no address) is a failure, as it is to a
 * runtime. Never waits after a failure: its caller does.
 */
async function runCall(host: HostState, call: HostCall): Promise<boolean> {
  const { plan, emit } = host;
  const { action, containerId, via } = call;
  const started = Date.now();
  host.phase.current = action;
  emit({ ev: 'started', host: plan.host, action, containerId, via, t: started });
  const done =
    action === 'assign'
      ? await assign(host, containerId, via)
      : await release(host, { containerId, via });
  const r: CallResult =
    done.ok && action === 'assign' && done.ips?.length !== 1
      ? { ok: false, code: 'Short', message: `assigned ${done.ips?.length ?? 0} addresses` }
      : done;
  const handle = handleOf(plan, containerId);
  const base = {
    host: plan.host,
    containerId,
    handle,
    via,
    t: Date.now(),
    ms: Date.now() - started,
  };
  if (r.ok && action === 'assign') {
    host.held.set(containerId, { containerId, via });
    emit({ ev: 'assigned', ...base, ips: r.ips ?? [] });
  } else if (r.ok) {
    host.held.delete(containerId);
    emit({ ev: 'released', ...base });
  } else {
    emit({ ev: 'failed', action, ...base, code: r.code ?? '?', message: r.message ?? '' });
  }
  return r.ok;
}

/** After a failed call that is not retried, the host pauses `backoffMs` before its next call. */
async function pauseAfter(host: HostState, ok: boolean): Promise<void> {
  if (!ok && host.plan.backoffMs) await sleep(host.plan.backoffMs);
}

/**
 * Assigns one address to `containerId` (one call, not retried); after a failure the host pauses
 * `backoffMs`, as a runtime backs off.
 */
export async function assignOnce(
  host: HostState,
  containerId: string,
  via: 'cni' | 'lib',
): Promise<void> {
  await pauseAfter(host, await runCall(host, { action: 'assign', containerId, via }));
}

/**
 * Releases `h` as a runtime retries a failed DEL until it succeeds (its outcome may be unknown:
 * the release may have applied): up to 100 calls, `backoffMs` after each failure. The host goes
 * on holding the handle only if every call failed.
 */
export async function releaseUntilDone(host: HostState, h: HeldHandle): Promise<void> {
  const call: HostCall = { action: 'release', containerId: h.containerId, via: h.via };
  const ok = await retryUntilDone(() => runCall(host, call), {
    attempts: RELEASE_ATTEMPTS,
    backoffMs: host.plan.backoffMs ?? 0,
  });
  await pauseAfter(host, ok);
}
