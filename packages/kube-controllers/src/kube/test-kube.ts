// Test helpers (not exported): Kubernetes objects on the test API server, as an admin. Pods are
// never scheduled there (no controllers, no kubelet): they are created bound to a node and their
// status is written through the status subresource.
import type { EventEmitter } from 'node:events';
import type { CoreV1Api } from '@kubernetes/client-node';

export async function createNode(core: CoreV1Api, name: string): Promise<void> {
  await core.createNode({ body: { metadata: { name } } });
}

export async function deleteNode(core: CoreV1Api, name: string): Promise<void> {
  await core.deleteNode({ name });
}

export async function createNamespace(core: CoreV1Api, name: string): Promise<void> {
  await core.createNamespace({ body: { metadata: { name } } });
}

/** Creates a pod bound to `node` and, with `ips`, reports them in its status (Running). */
export async function createPod(
  core: CoreV1Api,
  args: { namespace: string; name: string; node: string; ips?: string[] },
): Promise<string> {
  const created = await core.createNamespacedPod({
    namespace: args.namespace,
    body: {
      metadata: { name: args.name },
      spec: { nodeName: args.node, containers: [{ name: 'c', image: 'registry.invalid/pause' }] },
    },
  });
  if (args.ips) await setPodIps(core, { ...args, ips: args.ips });
  return created.metadata!.uid!;
}

async function setPodIps(
  core: CoreV1Api,
  args: { namespace: string; name: string; ips: string[] },
): Promise<void> {
  const pod = await core.readNamespacedPod({ name: args.name, namespace: args.namespace });
  await core.replaceNamespacedPodStatus({
    name: args.name,
    namespace: args.namespace,
    body: {
      ...pod,
      status: { phase: 'Running', podIP: args.ips[0], podIPs: args.ips.map((ip) => ({ ip })) },
    },
  });
}

/** Deletes a pod at once (no kubelet would ever confirm a graceful deletion). */
export async function deletePod(
  core: CoreV1Api,
  args: { namespace: string; name: string },
): Promise<void> {
  await core.deleteNamespacedPod({
    name: args.name,
    namespace: args.namespace,
    gracePeriodSeconds: 0,
  });
}

/**
 * Resolves with the first event `name` on `emitter` whose argument satisfies `match` (waiting
 * for the event, never a timer); rejects after `timeoutMs` saying what it waited for.
 */
export function nextEvent<T>(
  emitter: EventEmitter,
  name: string,
  match: (value: T) => boolean,
  timeoutMs = 30_000,
  what = name,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(name, on);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
    }, timeoutMs);
    const on = (value: T): void => {
      if (!match(value)) return;
      clearTimeout(timer);
      emitter.off(name, on);
      resolve(value);
    };
    emitter.on(name, on);
  });
}
