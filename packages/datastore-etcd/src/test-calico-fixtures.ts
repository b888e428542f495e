// Values as Calico writes them to etcd (see calico-ipam-internals.md §2), used by the tests.
import { execFileSync } from 'node:child_process';

/** The §2.1 example block, expanded to its 64 ordinals, byte for byte as Go's json.Marshal writes it. */
export const CALICO_BLOCK =
  '{"cidr":"10.0.0.0/26","affinity":"host:node1","affinity_claim_time":"2026-01-01T00:00:00Z",' +
  `"allocations":[0${',null'.repeat(63)}],` +
  `"unallocated":[${Array.from({ length: 63 }, (_, i) => i + 1).join(',')}],` +
  '"attributes":[{"handle_id":"k8s-pod-network.abc","secondary":{"namespace":"default","node":"node1","pod":"p1"}}],' +
  '"sequenceNumber":1767225600000000001,"sequenceNumberForAllocation":{"0":1767225600000000000},"deleted":false}';

/** Calico's etcd paths and raw values for one node with one pod. */
export const CALICO_KVS: Record<string, string> = {
  '/calico/ipam/v2/assignment/ipv4/block/10.0.0.0-26': CALICO_BLOCK,
  '/calico/ipam/v2/host/node1/ipv4/block/10.0.0.0-26': '{"state":"confirmed","deleted":false}',
  // An affinity written before affinity states existed: an empty object reads as confirmed.
  '/calico/ipam/v2/host/node2/ipv6/block/fd80:24e2:f998:72d6::-122': '{}',
  '/calico/ipam/v2/handle/k8s-pod-network.abc': '{"block":{"10.0.0.0/26":1},"deleted":false}',
  '/calico/ipam/v2/config':
    '{"strict_affinity":true,"auto_allocate_blocks":true,"maxBlocksPerHost":4}',
  '/calico/resources/v3/projectcalico.org/ippools/default-ipv4-ippool':
    '{"kind":"IPPool","apiVersion":"projectcalico.org/v3","metadata":{"name":"default-ipv4-ippool",' +
    '"uid":"0f3c8a8e-5b7e-4d8a-9c41-3f1f6f0e8d10","creationTimestamp":"2026-01-01T00:00:00Z"},' +
    '"spec":{"cidr":"10.0.0.0/16","vxlanMode":"Never","ipipMode":"Always","natOutgoing":true,' +
    '"blockSize":26,"nodeSelector":"all()","allowedUses":["Workload","Tunnel"]}}',
};

const ETCDCTL = process.env.ETCDCTL_BIN ?? '/usr/bin/etcdctl';

/** Runs etcdctl (v3 API) against `endpoints` with an argument array; returns its stdout. */
export function etcdctl(endpoints: readonly string[], args: string[]): string {
  return execFileSync(ETCDCTL, [`--endpoints=${endpoints.join(',')}`, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ETCDCTL_API: '3' },
  });
}

/** `etcdctl get --prefix <prefix>` as [key, value] pairs, in etcd's key order. */
export function etcdctlGetPrefix(endpoints: readonly string[], prefix: string): [string, string][] {
  const lines = etcdctl(endpoints, ['get', '--prefix', prefix]).split('\n');
  const pairs: [string, string][] = [];
  for (let i = 0; i + 1 < lines.length; i += 2) pairs.push([lines[i]!, lines[i + 1]!]);
  return pairs;
}
