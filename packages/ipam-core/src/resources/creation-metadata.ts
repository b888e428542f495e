import { goTimeFromMs } from '../codec/go-time.js';
import type { ObjectMeta } from '../model/resources.js';

/** The time and randomness a new resource's `uid` and `creationTimestamp` come from. */
export interface CreationPorts {
  readonly clock: { now(): number };
  readonly random: { next(): number };
}

type Resource = { readonly metadata: ObjectMeta };

const hex = (b: number): string => b.toString(16).padStart(2, '0');

/**
 * A random (version 4) UUID in the canonical lower-case form, as Kubernetes' `uuid.NewUUID`
 * gives Calico for `metadata.uid`; its 122 random bits come from `random`.
 */
function newUid(random: { next(): number }): string {
  const b = Array.from({ length: 16 }, () => Math.floor(random.next() * 256) & 0xff);
  b[6] = (b[6]! & 0x0f) | 0x40;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.map(hex).join('');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * `r` with the metadata Calico's clientv3 gives a resource on Create (libcalico-go/lib/clientv3/
 * resources.go): a `uid` when it has none, and a `creationTimestamp` (RFC 3339, whole seconds)
 * when it has none. Values already set are kept, as Calico keeps them.
 */
export function withCreationMetadata<T extends Resource>(r: T, ports: CreationPorts): T {
  const { uid, creationTimestamp } = r.metadata;
  if (uid && creationTimestamp) return r;
  return {
    ...r,
    metadata: {
      ...r.metadata,
      uid: uid || newUid(ports.random),
      creationTimestamp: creationTimestamp || goTimeFromMs(ports.clock.now()),
    },
  };
}

/**
 * `next` (replacing `current`) with `current`'s `uid` and `creationTimestamp`: an update keeps
 * them, as Kubernetes does, whatever the caller sent. Calico refuses to update a resource without
 * them, so a stored resource that lacks them (written before netledger set them) gets them now.
 */
export function keepCreationMetadata<T extends Resource>(
  current: Resource,
  next: T,
  ports: CreationPorts,
): T {
  const { uid, creationTimestamp } = current.metadata;
  return withCreationMetadata(
    {
      ...next,
      metadata: {
        ...next.metadata,
        ...(uid && { uid }),
        ...(creationTimestamp && { creationTimestamp }),
      },
    },
    ports,
  );
}
