/** A resource with `apiVersion` and `kind` first, as a manifest carries it. */
export function withTypeMeta<T extends object>(kind: string, r: T): Record<string, unknown> {
  return { apiVersion: 'projectcalico.org/v3', kind, ...r };
}
