import {
  MAX_RESOURCE_NAME_LENGTH,
  dns1123LabelProblem,
  dns1123SubdomainProblem,
} from '@netledger/ipam-core';
import type { CniArgs } from './cni-args.js';
import { CniError, CniErrorCode } from './cni-error.js';
import { handleIdFor } from './workload-identity.js';

const refuse = (msg: string, details: string): CniError =>
  new CniError(CniErrorCode.InvalidEnvironmentVariables, msg, {
    // A runtime could pass megabytes: the details show the start, not all of it.
    details:
      details.length > 300 ? `${details.slice(0, 300)}... (${details.length} characters)` : details,
  });

/**
 * Refuses (`InvalidEnvironmentVariables`, 4, naming the variable and the limit) an ADD whose input
 * would write what Kubernetes could not hold, before anything is written: `K8S_POD_NAME` must be a
 * pod name (a DNS-1123 subdomain, at most 253 bytes) and `K8S_POD_NAMESPACE` a namespace name (a
 * DNS-1123 label, at most 63 bytes), as every address's attributes record them; and the handle
 * `<network>.<CNI_CONTAINERID>[.<CNI_IFNAME>]` must fit an object name (253 bytes), which it is on
 * the Kubernetes store. Only ADD is held to this: a DEL for what an earlier version admitted must
 * still succeed.
 */
export function checkAddInputLimits(o: {
  readonly network: string;
  readonly containerId: string;
  readonly ifname: string;
  readonly cniArgs: CniArgs;
}): void {
  const k8s = o.cniArgs.k8s;
  if (k8s) {
    const pod = dns1123SubdomainProblem(k8s.pod);
    if (pod !== undefined) {
      throw refuse(`K8S_POD_NAME is not a Kubernetes pod name: it ${pod}`, k8s.pod);
    }
    const namespace = dns1123LabelProblem(k8s.namespace);
    if (namespace !== undefined) {
      throw refuse(
        `K8S_POD_NAMESPACE is not a Kubernetes namespace name: it ${namespace}`,
        k8s.namespace,
      );
    }
  }
  const handle = handleIdFor(o.network, o.containerId, o.ifname);
  if (handle.length > MAX_RESOURCE_NAME_LENGTH) {
    throw refuse(
      `CNI_CONTAINERID is too long: the handle <network>.<CNI_CONTAINERID> would be ${handle.length} characters, over ${MAX_RESOURCE_NAME_LENGTH} (a Kubernetes object name)`,
      o.containerId,
    );
  }
}
