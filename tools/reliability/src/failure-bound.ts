/**
 * The most calls that can fail across `hosts` hosts that each make one call at a time and wait
 * `backoffMs` after every failure: per fault window of D ms, ceil(D / backoffMs) + 1 per host (the
 * +1 is a call that started before the window and fails inside it).
 */
export function failureBound(o: {
  readonly hosts: number;
  readonly backoffMs: number;
  readonly windows: readonly { readonly from: number; readonly to: number }[];
}): number {
  const perHost = o.windows.reduce((n, w) => n + Math.ceil((w.to - w.from) / o.backoffMs) + 1, 0);
  return o.hosts * perHost;
}
