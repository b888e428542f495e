// The daemon refuses revisions that would break the host or running containers: no device.json
// (a typo'd state directory). Each refusal changes nothing.
import { describe, expect, it } from 'vitest';
import { createDeviceDaemon } from './device-daemon.js';
import { revisionFiles } from './test-fixtures.js';
import { fakeDeps } from './test-fakes.js';

const internal = { bridge: 'pvbr0', subnet: '10.0.5.0/24', gateway: '10.0.5.1', nat: true };
const lab = { bridge: 'pvbr1', subnet: '10.0.6.0/24', gateway: '10.0.6.1' };
const files = revisionFiles({
  pools: { internal, lab },
  containers: { a: { network: { pool: 'internal' } }, c: { network: { pool: 'lab' } } },
});
/** A daemon with `files` applied and `a` started (running), the host log cleared. */
async function running(f: ReturnType<typeof fakeDeps>) {
  const d = createDeviceDaemon(f.deps);
  await d.init();
  await d.apply(files);
  const lease = (await d.start('a')).leases[0];
  f.host.length = 0;
  return { d, lease, saves: f.store.saves, natCalls: f.natCalls.length };
}

describe('a revision without device.json', () => {
  it.each([
    ['no device.json', undefined, 'the revision has no device.json'],
    ['an empty device.json', '', 'device.json is empty'],
  ])(
    'is refused (%s): bridges, NAT and leases untouched, the revision in force serving',
    async (_why, deviceJson, message) => {
      const f = fakeDeps();
      const { d, lease, saves, natCalls } = await running(f);
      await expect(d.apply({ deviceJson, containers: [] })).rejects.toMatchObject({
        code: 'InvalidDeviceJson',
        message: expect.stringContaining(message),
      });
      expect(f.host).toEqual([]);
      expect(f.natCalls).toHaveLength(natCalls);
      expect(f.store.saves).toBe(saves);
      expect(d.pools().map((p) => p.name)).toEqual(['internal', 'lab']);
      expect(d.leases().find((l) => l.owner === 'a')).toEqual(lease);
      expect(d.health()).toMatchObject({ running: ['a'], refused: { code: 'InvalidDeviceJson' } });
      // a is not in the refused revision: the revision in force still serves it, same address.
      expect((await d.start('a')).leases[0]).toEqual(lease);
    },
  );
});
