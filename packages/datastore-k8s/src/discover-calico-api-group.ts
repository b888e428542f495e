// Which Calico API group the API server has, found as Calico's `UsingV3CRDs` finds it
// (libcalico-go lib/backend/k8s/discovery.go): the server's API groups (`GET /apis`, what client-go's
// `ServerGroups` reads for the named groups), then chooseCalicoApiGroup.
import { IpamError } from '@netledger/ipam-core';
import type { CalicoApiGroup } from './calico-api-group.js';
import { chooseCalicoApiGroup } from './calico-api-group.js';
import type { KubeCalls } from './kube-calls.js';
import { isObject } from './kube-object-kv.js';

const OBJECT = '/apis (the API groups, to find which Calico API group is installed)';

/**
 * The Calico API group to use on the API server of `calls`. When the server does not answer with
 * its group list, throws its mapped error (`Unavailable` naming the server, or the code of its
 * answer) instead of assuming one: Calico falls back to crd.projectcalico.org/v1 there, but a
 * wrong guess would put netledger's IPAM in another group than Calico's. Nothing is cached here.
 */
export async function discoverCalicoApiGroup(calls: KubeCalls): Promise<CalicoApiGroup> {
  const res = await calls.call({ method: 'GET', path: '/apis' }, OBJECT);
  if (res.status !== 200) calls.fail(res, { method: 'GET', object: OBJECT });
  const groups = isObject(res.body) ? res.body.groups : undefined;
  if (!Array.isArray(groups)) {
    throw new IpamError(
      'Unavailable',
      `kube-apiserver at ${calls.server} answered GET ${OBJECT} without an APIGroupList`,
    );
  }
  return chooseCalicoApiGroup(
    groups.flatMap((g) => (isObject(g) && typeof g.name === 'string' ? [g.name] : [])),
  );
}
