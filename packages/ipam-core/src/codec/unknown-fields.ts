// The fields of a resource that its Calico v3 Go type does not have: what calicoctl's strict
// decoding (yaml.UnmarshalStrict, libcalico's resourcemgr) refuses, so that a typo such as
// `spec.cidrr` is an error rather than a field silently stored and never read.
import { IPAM_CONFIGURATION, IP_POOL, IP_RESERVATION, NODE } from './calico-schemas.js';
import type { GoType } from './go-struct.js';

/** The v3 kinds a manifest may hold. */
export type ManifestResourceKind = 'IPPool' | 'IPReservation' | 'Node' | 'IPAMConfiguration';

const TYPES: Record<ManifestResourceKind, GoType> = {
  IPPool: IP_POOL,
  IPReservation: IP_RESERVATION,
  Node: NODE,
  IPAMConfiguration: IPAM_CONFIGURATION,
};

const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The unknown fields of `v` (of Go type `type`, at `path`). */
function unknownIn(type: GoType, v: unknown, path: string): string[] {
  if (typeof type === 'string') return [];
  if ('ptr' in type) return unknownIn(type.ptr, v, path);
  if ('slice' in type) {
    return Array.isArray(v) ? v.flatMap((x, i) => unknownIn(type.slice, x, `${path}[${i}]`)) : [];
  }
  if ('map' in type) {
    return isObj(v)
      ? Object.entries(v).flatMap(([k, x]) => unknownIn(type.map, x, `${path}[${k}]`))
      : [];
  }
  if (!isObj(v)) return [];
  return Object.entries(v).flatMap(([k, x]) => {
    const field = type.struct.find((f) => f.key === k);
    const at = path === '' ? k : `${path}.${k}`;
    if (field) return unknownIn(field.type, x, at);
    // Go matches field names without regard to case: say which one was meant.
    const meant = type.struct.find((f) => f.key.toLowerCase() === k.toLowerCase());
    return [meant ? `${at} (did you mean ${meant.key}?)` : at];
  });
}

/**
 * The paths (`spec.cidrr`, `spec.addresses[0].adress`, a top-level `specs`) of every field of
 * `resource` that Calico's v3 type for `kind` does not have, in document order; empty when
 * there is none. Values of the wrong type are not its concern (validation reports those).
 */
export function unknownResourceFields(kind: ManifestResourceKind, resource: unknown): string[] {
  return unknownIn(TYPES[kind], resource, '');
}
