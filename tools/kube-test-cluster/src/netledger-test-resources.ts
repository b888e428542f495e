import { KubeTestClusterError } from './kube-test-cluster-error.js';
import type { KubeObject } from './patch-for-test-cluster.js';

/**
 * The leak grace period of a test cluster's netledger-kube-controllers, set where Calico's users
 * set it (the KubeControllersConfiguration `default`): short, so a test sees a leak reclaimed
 * (Calico's default is 15m).
 */
export const TEST_LEAK_GRACE_PERIOD = '15s';

const POOL_NAME = /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/;

/**
 * What an operator creates besides the manifests (deploy/README.md), for a test cluster: the IP
 * pool install-cni's settings name (`NETLEDGER_IPV4_POOLS`, one pool name), over `cidr`, in
 * Calico's CRD group; and the KubeControllersConfiguration `default` with the node controller's
 * leak grace period {@link TEST_LEAK_GRACE_PERIOD}. Throws START_FAILED when the settings do not
 * name exactly one pool by name.
 */
export function netledgerTestResources(o: {
  readonly ipv4Pools: string | undefined;
  readonly cidr: string;
}): KubeObject[] {
  const pools = (o.ipv4Pools ?? '')
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  const [pool] = pools;
  if (pools.length !== 1 || pool === undefined || !POOL_NAME.test(pool)) {
    throw new KubeTestClusterError(
      'START_FAILED',
      `NETLEDGER_IPV4_POOLS ${JSON.stringify(o.ipv4Pools ?? '')}: the test cluster makes one ` +
        'pool, and needs its name there',
    );
  }
  return [
    {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'IPPool',
      metadata: { name: pool },
      spec: {
        cidr: o.cidr,
        blockSize: 26,
        ipipMode: 'Never',
        vxlanMode: 'Never',
        natOutgoing: false,
        nodeSelector: 'all()',
      },
    },
    {
      apiVersion: 'crd.projectcalico.org/v1',
      kind: 'KubeControllersConfiguration',
      metadata: { name: 'default' },
      spec: { controllers: { node: { leakGracePeriod: TEST_LEAK_GRACE_PERIOD } } },
    },
  ];
}
