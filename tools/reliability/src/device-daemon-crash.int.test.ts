import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createNetnsPool, createTempDir, requireNetnsTools } from '@netledger/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditDeviceLeases, parseDeviceLeaseFile } from './audit/audit-device-leases.js';
import type { DeviceLeaseAudit } from './audit/audit-device-leases.js';
import type { DeviceDaemonProcess } from './device-daemon-process.js';
import { runDeviceVerb, startDeviceDaemon } from './device-daemon-process.js';
import { reportFigures } from './report-figures.js';
import { reliabilityScale } from './scale.js';
import { seededRandom } from './worker/seeded-random.js';
import { DEVICE, requireBins } from './workspace.js';

// The device daemon (bin/netledger-device serve, in a throwaway network namespace) SIGKILLed at
// random moments (and right after it writes a lease) while client processes start and tear down containers' networks through it, as
// LXC hooks do; restarted each time on the same state and data directories. Its lease file, read
// raw while it is down and at the end, never holds an address twice and never loses a lease a
// client was told of.

const SCALE = reliabilityScale();
const CLIENTS = 4;
const CONTAINERS_PER_CLIENT = 6;
/** Calls each client makes at least; clients go on until the last kill is done. */
const OPS = 24 * SCALE;
const KILLS = 6 * SCALE;
/** A /27 without its gateway: 29 addresses for 24 containers, so the cursor wraps around. */
const POOL = {
  type: 'bridge',
  bridge: 'nlrel0',
  subnet: '10.86.0.0/27',
  gateway: '10.86.0.1',
  nat: false,
};
/** Calls to one verb before a client gives up (each failed one waits for the daemon to be back). */
const MAX_ATTEMPTS = 40;

const namespaces = createNetnsPool();
let tmp: { path: string; remove: () => Promise<void> };
let daemon: DeviceDaemonProcess | undefined;

beforeAll(async () => {
  requireNetnsTools({ ip: 'iproute2' });
  requireBins([DEVICE]);
  tmp = await createTempDir('netledger-rel-device-');
});
afterAll(async () => {
  await daemon?.kill9();
  namespaces.cleanup();
  await tmp?.remove();
});

const containerName = (client: number, i: number): string => `c${client}x${i}`;

/** The state directory: the pool, and every container's run.json asking for an address in it. */
function writeState(dir: string): void {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'device.json'), JSON.stringify({ network: { pools: { rel: POOL } } }));
  for (let c = 0; c < CLIENTS; c++) {
    for (let i = 0; i < CONTAINERS_PER_CLIENT; i++) {
      const d = join(dir, containerName(c, i));
      mkdirSync(d);
      writeFileSync(
        join(d, 'run.json'),
        JSON.stringify({ network: { mode: 'pool', pool: 'rel' } }),
      );
    }
  }
}

interface StartAnswer {
  readonly leases: readonly { readonly address: string }[];
}

describe('the device daemon killed with SIGKILL under concurrent clients', () => {
  it(
    'never leases an address twice and never loses an acknowledged lease',
    { timeout: 120_000 },
    async () => {
      const ns = namespaces.create('rel-device');
      const state = join(tmp.path, 'state');
      const dataDir = join(tmp.path, 'data');
      const socket = join(tmp.path, 'device.sock');
      const leaseFile = join(dataDir, 'leases.json');
      writeState(state);
      mkdirSync(dataDir, { mode: 0o700 });
      const start = () => startDeviceDaemon({ ns, state, dataDir, socket });

      // What the clients were told, and which containers have a call in flight.
      const held = new Map<string, string>();
      const inDoubt = new Set<string>();
      const moved: string[] = [];
      const refused: string[] = [];
      let acked = 0;
      let failedCalls = 0;

      // The daemon's availability: clients whose call failed wait for it to be back.
      let up: Promise<void> = Promise.resolve();
      let markUp: () => void = () => {};
      daemon = await start();

      let killing = true;
      const killer = (async () => {
        const random = seededRandom(7);
        const audits: (DeviceLeaseAudit & { inFlight: number; landed: number })[] = [];
        const restartMs: number[] = [];
        for (let k = 0; k < KILLS; k++) {
          // Every other kill at a random moment 50-400 ms into the daemon's service, under the
          // clients' calls; the others as soon as it logs a lease made or released, which it does
          // once the lease file is written and before it answers: the window where a client's
          // call is cut after its write landed.
          if (k % 2 === 0) await new Promise((r) => setTimeout(r, 50 + random() * 350));
          else await daemon.nextLog(/"msg":"(platform network|released lease)"/);
          up = new Promise((resolve) => {
            markUp = resolve;
          });
          const inFlight = inDoubt.size;
          await daemon.kill9();
          // Down: the file is what a reboot would find. Audit it raw.
          const leases = parseDeviceLeaseFile(readFileSync(leaseFile, 'utf8'));
          // Calls in flight whose write had landed (a lease made or released, not yet told).
          const owners = new Map(leases.map((l) => [l.owner, l.address]));
          const landed = [...inDoubt].filter((c) => owners.get(c) !== held.get(c)).length;
          audits.push({ ...auditDeviceLeases(leases, { held, inDoubt }), inFlight, landed });
          const t = Date.now();
          daemon = await start();
          restartMs.push(Date.now() - t);
          markUp();
        }
        killing = false;
        return { audits, restartMs };
      })();

      /** Runs a verb until the daemon answers it (a call the kill cut is sent again). */
      const call = async (verb: 'start' | 'teardown', container: string) => {
        for (let attempt = 1; ; attempt++) {
          const r = await runDeviceVerb(verb, { container, socket });
          if (r.code !== 3) return r;
          failedCalls++;
          if (attempt >= MAX_ATTEMPTS) return r;
          await up;
        }
      };

      const clients = Array.from({ length: CLIENTS }, async (_, c) => {
        const random = seededRandom(100 + c);
        for (let n = 0; n < OPS || killing; n++) {
          const container = containerName(c, Math.floor(random() * CONTAINERS_PER_CLIENT));
          const verb = held.has(container) && random() < 0.5 ? 'teardown' : 'start';
          inDoubt.add(container);
          const r = await call(verb, container);
          if (r.code !== 0) {
            refused.push(
              `${verb} ${container}: exit ${r.code} ${r.stderr}${JSON.stringify(r.out)}`,
            );
            // Its outcome stays unknown: the container stays in doubt.
            continue;
          }
          acked++;
          if (verb === 'teardown') {
            held.delete(container);
          } else {
            const address = (r.out as StartAnswer).leases[0]?.address ?? '';
            const before = held.get(container);
            if (before !== undefined && before !== address)
              moved.push(`${container}: ${before} then ${address}`);
            held.set(container, address);
          }
          inDoubt.delete(container);
        }
      });
      await Promise.all(clients);
      const { audits, restartMs } = await killer;

      // Settled: every call answered. The file, read raw, is exactly what the clients were told,
      // and so is the daemon's own answer.
      const final = auditDeviceLeases(parseDeviceLeaseFile(readFileSync(leaseFile, 'utf8')), {
        held,
        inDoubt,
      });
      const listed = await runDeviceVerb('leases', { socket });
      const served = new Map(
        (listed.out as { leases: { owner: string; address: string }[] }).leases.map((l) => [
          l.owner,
          l.address,
        ]),
      );
      await daemon.kill9();

      reportFigures('device-daemon-crash', {
        clients: CLIENTS,
        containers: CLIENTS * CONTAINERS_PER_CLIENT,
        operations: acked,
        kills: audits.length,
        killsWithCallsInFlight: audits.filter((a) => a.inFlight > 0).length,
        callsCutByKills: failedCalls,
        writesLandedUntold: audits.reduce((n, a) => n + a.landed, 0),
        restartMsMax: Math.max(...restartMs),
        restartMsMedian: [...restartMs].sort((a, b) => a - b)[Math.floor(restartMs.length / 2)],
        leasesAtEnd: final.leases,
        duplicates: audits.reduce((n, a) => n + a.duplicates.length, final.duplicates.length),
        lost: audits.reduce((n, a) => n + a.lost.length, final.lost.length),
        moved: moved.length,
      });

      expect(refused).toEqual([]);
      expect(inDoubt.size).toBe(0);
      expect(audits).toHaveLength(KILLS);
      for (const a of audits) {
        expect(a.duplicates).toEqual([]);
        expect(a.lost).toEqual([]);
        expect(a.unexpected).toEqual([]);
      }
      expect(moved).toEqual([]);
      expect(final).toMatchObject({ duplicates: [], lost: [], unexpected: [] });
      expect(final.leases).toBe(held.size);
      expect(served).toEqual(held);
      // The kills met calls: some were cut and sent again.
      expect(failedCalls).toBeGreaterThan(0);
    },
  );
});
