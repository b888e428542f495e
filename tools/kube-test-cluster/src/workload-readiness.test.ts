import { describe, expect, it } from 'vitest';
import { workloadsReady } from './workload-readiness.js';
import type { WorkloadView } from './workload-readiness.js';

const ds = (status: WorkloadView['status'], generation = 1): WorkloadView => ({
  kind: 'DaemonSet',
  metadata: { name: 'netledger-node', generation },
  status: { observedGeneration: 1, ...status },
});
const deploy = (replicas: number, status: WorkloadView['status']): WorkloadView => ({
  kind: 'Deployment',
  metadata: { name: 'netledger-kube-controllers', generation: 1 },
  spec: { replicas },
  status: { observedGeneration: 1, ...status },
});

describe('workloadsReady', () => {
  it('is ready when every pod of the current spec is Ready', () => {
    expect(
      workloadsReady([
        ds({ desiredNumberScheduled: 1, numberReady: 1, updatedNumberScheduled: 1 }),
        deploy(1, { readyReplicas: 1, updatedReplicas: 1 }),
      ]),
    ).toEqual({ ready: true, why: '' });
  });

  it.each<[string, WorkloadView, string]>([
    [
      'a DaemonSet on no node yet',
      ds({ desiredNumberScheduled: 0 }),
      'daemonset/netledger-node: 0 of 0 ready',
    ],
    [
      'a pod not Ready',
      ds({ desiredNumberScheduled: 1, numberReady: 0, updatedNumberScheduled: 1 }),
      'daemonset/netledger-node: 0 of 1 ready',
    ],
    [
      'a status older than the spec',
      ds({ desiredNumberScheduled: 1, numberReady: 1, updatedNumberScheduled: 1 }, 2),
      'daemonset/netledger-node: not observed',
    ],
    [
      'a Deployment short of replicas',
      deploy(2, { readyReplicas: 1, updatedReplicas: 2 }),
      'deployment/netledger-kube-controllers: 1 of 2 ready',
    ],
  ])('is not ready with %s, and says so', (_, workload, why) => {
    expect(workloadsReady([workload])).toEqual({ ready: false, why });
  });

  it('is not ready with nothing to wait for', () => {
    expect(workloadsReady([]).ready).toBe(false);
  });
});
