import { describe, expect, it } from 'vitest';
import { auditRawIpam } from './audit-raw-ipam.js';
import type { RawBlock } from './raw-ipam.js';

/** A /30 block with `owners[ordinal]` = handle (or null for free). */
function block(cidr: string, owners: (string | null)[]): RawBlock {
  const handles = [...new Set(owners.filter((o): o is string => o !== null))];
  return {
    cidr,
    allocations: owners.map((o) => (o === null ? null : handles.indexOf(o))),
    unallocated: owners.flatMap((o, i) => (o === null ? [i] : [])),
    attributes: handles.map((h) => ({ handle_id: h })),
  };
}

describe('auditRawIpam', () => {
  it('finds nothing wrong in consistent blocks and handles', () => {
    const a = auditRawIpam({
      blocks: [block('10.0.0.0/30', ['h1', null, 'h2', 'h1'])],
      handles: [
        { handleId: 'h1', block: { '10.0.0.0/30': 2 } },
        { handleId: 'h2', block: { '10.0.0.0/30': 1 } },
      ],
      affinities: [],
    });
    expect(a).toMatchObject({ duplicates: [], blockProblems: [], handleMismatches: [] });
    expect(a.byHandle.get('h1')).toEqual(['10.0.0.0', '10.0.0.3']);
  });

  it('finds an address held in two overlapping blocks', () => {
    const a = auditRawIpam({
      blocks: [block('10.0.0.0/30', ['h1', null, null, null]), block('10.0.0.0/31', ['h2', null])],
      handles: [
        { handleId: 'h1', block: { '10.0.0.0/30': 1 } },
        { handleId: 'h2', block: { '10.0.0.0/31': 1 } },
      ],
      affinities: [],
    });
    expect(a.duplicates).toEqual(['10.0.0.0']);
  });

  it.each([
    [
      'an ordinal both allocated and free',
      { ...block('10.0.0.0/30', ['h1', null, null, null]), unallocated: [0, 1, 2, 3] },
      /ordinal 0 is free or allocated 2 times/,
    ],
    [
      'an ordinal lost',
      { ...block('10.0.0.0/30', ['h1', null, null, null]), unallocated: [1, 2] },
      /ordinal 3 is free or allocated 0 times/,
    ],
    [
      'an allocation pointing at a missing attribute',
      { ...block('10.0.0.0/30', ['h1', null, null, null]), allocations: [5, null, null, null] },
      /attribute 5 does not exist/,
    ],
  ])('reports %s', (_, b, problem) => {
    const a = auditRawIpam({
      blocks: [b],
      handles: [{ handleId: 'h1', block: { '10.0.0.0/30': 1 } }],
      affinities: [],
    });
    expect(a.blockProblems.join('\n')).toMatch(problem);
  });

  it.each([
    ['a count too high', { '10.0.0.0/30': 2 }, /holds 1, the handle says 2/],
    ['a block the handle does not name', {}, /holds 1, the handle says 0/],
    [
      'a block that holds none of it',
      { '10.0.0.0/30': 1, '10.0.0.4/30': 1 },
      /says 1 in 10.0.0.4\/30/,
    ],
  ])('reports a handle with %s', (_, counts, mismatch) => {
    const a = auditRawIpam({
      blocks: [block('10.0.0.0/30', ['h1', null, null, null])],
      handles: [{ handleId: 'h1', block: counts }],
      affinities: [],
    });
    expect(a.handleMismatches.join('\n')).toMatch(mismatch);
  });

  it('reports an allocation whose handle does not exist', () => {
    const a = auditRawIpam({
      blocks: [block('10.0.0.0/30', ['h9', null, null, null])],
      handles: [],
      affinities: [],
    });
    expect(a.handleMismatches).toEqual(['h9: allocated in 10.0.0.0/30 but has no handle']);
  });
});
