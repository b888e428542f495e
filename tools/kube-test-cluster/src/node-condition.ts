/** The parts of a Node the readiness check reads. */
export interface NodeStatusView {
  readonly status?: {
    readonly conditions?: readonly { type: string; status: string; message?: string }[];
  };
}

/**
 * Whether a Node's `Ready` condition is `True`, and the condition's message otherwise (or why
 * there is none), for progress and error messages.
 */
export function nodeReadiness(node: NodeStatusView): { ready: boolean; why: string } {
  const ready = node.status?.conditions?.find((c) => c.type === 'Ready');
  if (!ready) return { ready: false, why: 'no Ready condition yet' };
  return { ready: ready.status === 'True', why: ready.message ?? `Ready=${ready.status}` };
}
