import { describe, expect, it } from 'vitest';
import type { IPPool } from '../model/resources.js';
import { withPoolDefaults } from './pool-defaults.js';

const pool = (spec: Partial<IPPool['spec']> & { cidr: string }): IPPool => ({
  metadata: { name: 'p' },
  spec,
});

describe('withPoolDefaults', () => {
  it.each([
    ['10.0.0.0/16', 26],
    ['fd00::/64', 122],
  ])('defaults %s to block size %d, all(), [Workload, Tunnel], Automatic', (cidr, blockSize) => {
    expect(withPoolDefaults(pool({ cidr })).spec).toEqual({
      cidr,
      blockSize,
      nodeSelector: 'all()',
      allowedUses: ['Workload', 'Tunnel'],
      assignmentMode: 'Automatic',
    });
  });

  it('treats 0, empty selector and empty uses as unset', () => {
    const out = withPoolDefaults(
      pool({ cidr: '10.0.0.0/16', blockSize: 0, nodeSelector: '', allowedUses: [] }),
    );
    expect(out.spec).toMatchObject({
      blockSize: 26,
      nodeSelector: 'all()',
      allowedUses: ['Workload', 'Tunnel'],
    });
  });

  it('keeps what the user wrote, and extra fields', () => {
    const input = pool({
      cidr: '10.0.0.0/16',
      blockSize: 28,
      nodeSelector: 'a == "b"',
      allowedUses: ['LoadBalancer'],
      assignmentMode: 'Manual',
      ipipMode: 'Always',
    });
    expect(withPoolDefaults(input).spec).toEqual(input.spec);
  });

  it('never mutates its input', () => {
    const input = Object.freeze(pool({ cidr: '10.0.0.0/16' }));
    Object.freeze(input.spec);
    const out = withPoolDefaults(input);
    expect(input.spec).toEqual({ cidr: '10.0.0.0/16' });
    expect(out).not.toBe(input);
  });
});
