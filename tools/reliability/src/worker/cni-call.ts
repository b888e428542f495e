import { spawnSync } from 'node:child_process';
import { bareAddress } from './call-result.js';
import type { CallResult } from './call-result.js';
import { cniEnv } from './cni-env.js';
import type { WorkerPlan } from './worker-plan.js';

/**
 * One plugin run, as a runtime makes it: CNI_* variables and the plan's netconf on stdin. Ok with
 * the addresses of the result, or failed with `cni-<code>` (the plugin's error code, else its exit
 * status or signal) and its message (else the tail of its stderr).
 */
export function cniCall(
  plan: Pick<WorkerPlan, 'plugin' | 'namespace' | 'netconf'>,
  command: 'ADD' | 'DEL',
  containerId: string,
): CallResult {
  const r = spawnSync(plan.plugin, [], {
    env: cniEnv({ command, containerId, namespace: plan.namespace }),
    input: JSON.stringify(plan.netconf),
    encoding: 'utf8',
  });
  let out: { ips?: { address: string }[]; code?: number; msg?: string } = {};
  try {
    out = JSON.parse(r.stdout) as typeof out;
  } catch {
    // Not JSON: reported below with the exit status.
  }
  if (r.status === 0) return { ok: true, ips: (out.ips ?? []).map((i) => bareAddress(i.address)) };
  return {
    ok: false,
    code: `cni-${out.code ?? r.status ?? r.signal}`,
    message: out.msg ?? r.stderr.slice(-300),
  };
}
