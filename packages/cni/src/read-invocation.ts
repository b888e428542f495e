import { checkAddInputLimits } from './add-input-limits.js';
import { parseCniArgs } from './cni-args.js';
import type { CniArgs } from './cni-args.js';
import type { CniRequest, Env } from './cni-request.js';
import { parseNetConf } from './net-conf.js';
import type { NetConf } from './net-conf.js';
import { enforcePathPolicy } from './path-policy.js';

/** A request's config and CNI_ARGS, checked. */
export interface ReadInvocation {
  readonly conf: NetConf;
  readonly cniArgs: CniArgs;
}

/**
 * Parses the calico-ipam config on `stdin` and CNI_ARGS, applies the path policy, and refuses an
 * ADD whose pod, namespace or handle Kubernetes could not hold (code 4). Throws the CniError of
 * the first check that fails; writes nothing.
 */
export async function readInvocation(
  inv: { readonly env: Env; readonly stdin: string },
  request: CniRequest,
): Promise<ReadInvocation> {
  const conf = parseNetConf(inv.stdin, inv.env);
  await enforcePathPolicy({ ipam: conf.ipam, stdin: inv.stdin, env: inv.env });
  const cniArgs = parseCniArgs(request.args);
  if (request.command === 'ADD') {
    checkAddInputLimits({
      network: conf.name,
      containerId: request.containerId,
      ifname: request.ifname,
      cniArgs,
    });
  }
  return { conf, cniArgs };
}
