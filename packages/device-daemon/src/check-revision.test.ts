import { describe, expect, it } from 'vitest';
import { checkRevision } from './check-revision.js';
import { revisionFiles } from './test-fixtures.js';

const internal = {
  type: 'bridge',
  bridge: 'pvbr0',
  subnet: '10.0.5.0/24',
  gateway: '10.0.5.1',
  nat: true,
};

describe('checkRevision', () => {
  it('shows what each container would get, after the reservation walk', () => {
    const r = checkRevision(
      revisionFiles({
        pools: { internal },
        containers: {
          app: { network: { pool: 'internal' } },
          legacy: { lxc: 'lxc.net.0.ipv4.address = 10.0.5.2' },
        },
      }),
    );
    expect(r.ok).toBe(true);
    expect(r.containers[0]?.lxc).toContain('lxc.net.0.ipv4.address = 10.0.5.3/24');
    expect(r.reservations).toMatchObject([{ container: 'legacy', outcome: 'reserved' }]);
  });

  it('reports refused containers and a refused device.json', () => {
    const r = checkRevision(
      revisionFiles({ pools: { internal }, containers: { bad: { network: { pool: 'x' } } } }),
    );
    expect(r).toMatchObject({
      ok: false,
      containers: [{ name: 'bad', error: { code: 'UnknownPool' } }],
    });
    expect(checkRevision({ deviceJson: '[]', containers: [] })).toMatchObject({
      ok: false,
      error: { code: 'InvalidDeviceJson' },
    });
  });

  it('refuses a revision without device.json instead of reading it as "no pools"', () => {
    expect(checkRevision({ deviceJson: undefined, containers: [] })).toMatchObject({
      ok: false,
      error: {
        code: 'InvalidDeviceJson',
        message: expect.stringContaining('the revision has no device.json'),
      },
    });
  });
});
