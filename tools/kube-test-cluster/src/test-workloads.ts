// Test helpers: the workloads the cluster tests run, and waiting on what they do.
import { setTimeout as sleep } from 'node:timers/promises';
import { percentile } from '@netledger/bench';
import type { Kubectl } from './kubectl.js';
import { BUSYBOX_IMAGE } from './node-images.js';
import type { PodTimes } from './test-cluster-cli.js';

/**
 * Polls `check` until it is true; for state the cluster reaches asynchronously (no event to
 * wait on through kubectl). Fails naming `what` after `ms`.
 */
export async function eventually(
  check: () => Promise<boolean>,
  what: string,
  ms = 180_000,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`not true within ${ms / 1000} s: ${what}`);
    await sleep(250);
  }
}

/** Runs `work` on every item, at most `limit` at a time. */
async function eachLimited<T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

/** A Deployment of the busybox test image that sleeps and stops at once when asked. */
export const busyboxDeployment = (namespace: string, replicas: number, name = 'busybox') => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace },
  spec: {
    replicas,
    selector: { matchLabels: { app: name } },
    template: {
      metadata: { labels: { app: name } },
      spec: {
        terminationGracePeriodSeconds: 5,
        containers: [
          {
            name: 'busybox',
            image: BUSYBOX_IMAGE,
            imagePullPolicy: 'Never',
            // As PID 1, sh ignores SIGTERM unless trapped: stop at once when asked.
            command: ['/bin/sh', '-c', "trap 'exit 0' TERM; sleep 2147483647 & wait"],
          },
        ],
      },
    },
  },
});

/** The parts of a Pod the tests read. */
export interface PodView {
  metadata: { name: string; uid: string; labels?: Record<string, string> };
  status: { podIP?: string; conditions?: { type: string; status: string }[] };
}

export const isReady = (p: PodView): boolean =>
  p.status.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/** The pods of `namespace` (with `selector`, e.g. `app=busybox`), as the API has them. */
export async function listPods(
  kubectl: Kubectl,
  namespace: string,
  selector?: string,
): Promise<PodView[]> {
  const r = await kubectl([
    'get',
    'pods',
    '-n',
    namespace,
    ...(selector ? ['-l', selector] : []),
    '-o',
    'json',
  ]);
  if (r.status !== 0) throw new Error(`kubectl get pods -n ${namespace}: ${r.stderr}`);
  return (JSON.parse(r.stdout) as { items: PodView[] }).items;
}

/** Waits until `namespace` has exactly `count` pods matching `selector`, each Ready. */
export async function waitForReadyPods(
  kubectl: Kubectl,
  o: { namespace: string; selector: string; count: number; ms?: number },
): Promise<PodView[]> {
  let pods: PodView[] = [];
  await eventually(
    async () => {
      pods = await listPods(kubectl, o.namespace, o.selector);
      return pods.length === o.count && pods.every(isReady);
    },
    `${o.count} pods ${o.selector} Ready in ${o.namespace}`,
    o.ms,
  );
  return pods;
}

/** Creation-to-Ready latency of each pod the watch saw Ready, sorted, and p50 and p99 (ms). */
export function startupLatency(times: Iterable<PodTimes>): {
  latencies: number[];
  p50: number;
  p99: number;
} {
  const latencies = [...times]
    .filter((t) => t.ready !== undefined)
    .map((t) => t.ready! - t.added)
    .sort((a, b) => a - b);
  return { latencies, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/**
 * Checks, four pods at a time, that each pod has the address the API reports on its eth0 and
 * pings the next pod's address; resolves with what failed (empty when every pod passed).
 */
export async function podNetworkProblems(
  kubectl: Kubectl,
  namespace: string,
  pods: readonly PodView[],
): Promise<string[]> {
  const ips = pods.map((p) => p.status.podIP!);
  const problems: string[] = [];
  await eachLimited(
    pods.map((pod, i) => ({ pod, peer: ips[(i + 1) % ips.length]! })),
    4,
    async ({ pod, peer }) => {
      const name = pod.metadata.name;
      const r = await kubectl([
        'exec',
        '-n',
        namespace,
        name,
        '--',
        'sh',
        '-c',
        `ip -4 -o addr show dev eth0 && ping -c 1 -W 5 ${peer}`,
      ]);
      if (r.status !== 0) problems.push(`${name}: exit ${r.status}: ${r.stderr}`);
      else if (!r.stdout.includes(`inet ${pod.status.podIP}/`))
        problems.push(`${name}: eth0 lacks ${pod.status.podIP}: ${r.stdout}`);
      else if (!r.stdout.includes('1 packets received'))
        problems.push(`${name}: no answer from ${peer}: ${r.stdout}`);
    },
  );
  return problems;
}
