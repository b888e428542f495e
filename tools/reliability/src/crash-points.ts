import type { CrashPoint } from './worker/worker-plan.js';

/** Where a host is killed, and what state that leaves behind until recovery. */
const CRASH_POINTS: readonly (Omit<CrashPoint, 'nth' | 'when'> & {
  readonly leaves: string;
})[] = [
  {
    during: 'assign',
    kind: 'IPAMHandle',
    op: 'create',
    leaves: 'a handle counted, its block not written',
  },
  {
    during: 'assign',
    kind: 'IPAMBlock',
    op: 'update',
    leaves: 'an address allocated, the caller never told',
  },
  {
    during: 'assign',
    kind: 'BlockAffinity',
    op: 'create',
    leaves: 'block claim: a pending affinity, no block',
  },
  {
    during: 'assign',
    kind: 'IPAMBlock',
    op: 'create',
    leaves: 'block claim: a block with an unconfirmed affinity',
  },
  {
    during: 'release',
    kind: 'IPAMBlock',
    op: 'update',
    leaves: 'an address freed, its handle still counting it',
  },
  {
    during: 'release',
    kind: 'IPAMHandle',
    op: 'delete',
    leaves: 'a release done but for its handle',
  },
  {
    during: 'drain',
    kind: 'BlockAffinity',
    op: 'update',
    leaves: 'affinity release: an affinity pending deletion',
  },
  {
    during: 'drain',
    kind: 'IPAMBlock',
    op: 'delete',
    leaves: 'affinity release: the block gone, the affinity left',
  },
  {
    during: 'drain',
    kind: 'BlockAffinity',
    op: 'delete',
    leaves: 'affinity release: done, the caller never told',
  },
];

/** The crash point of host `h` in round `r`: every point in turn, kill before or after, nth seeded. */
export function crashPointFor(
  {
    round: r,
    host: h,
    hosts,
  }: { readonly round: number; readonly host: number; readonly hosts: number },
  random: () => number,
): CrashPoint {
  const i = (r * hosts + h) % CRASH_POINTS.length;
  const { leaves: _, ...p } = CRASH_POINTS[i]!;
  const repeated = p.during === 'assign' && p.kind === 'IPAMBlock' && p.op === 'update';
  return {
    ...p,
    nth: repeated ? 1 + Math.floor(random() * 3) : 1,
    when: (r + h) % 2 === 0 ? 'after' : 'before',
  };
}
