import { describe, expect, it } from 'vitest';
import { createDaemonMetrics } from './metrics.js';
import type { MetricsSnapshot } from './metrics.js';

const snapshot: MetricsSnapshot = {
  pools: [
    {
      name: 'dual',
      type: 'bridge',
      bridge: 'b0',
      subnet: '10.0.5.0/24',
      gateway: '10.0.5.1',
      nat: true,
      subnet6: 'fd00::/64',
      gateway6: 'fd00::1',
      nat6: false,
      capacity: 253,
      leased: 2,
      reserved: 1,
      free: 250,
      ipv6: { capacity: 2 ** 64, leased: 3, reserved: 0, free: 2 ** 64 },
    },
    {
      name: 'six',
      type: 'bridge',
      bridge: 'b1',
      nat: false,
      subnet6: 'fd01::/64',
      gateway6: 'fd01::1',
      nat6: true,
      ipv6: { capacity: 5, leased: 0, reserved: 0, free: 5 },
    },
  ],
  leases: 6,
  rssBytes: 1234,
  refused: true,
};

describe('createDaemonMetrics', () => {
  it('exposes the counters and, per scrape, the gauges by pool and family', async () => {
    const m = createDaemonMetrics(() => snapshot);
    m.applies.inc();
    m.applyFailures.inc({ code: 'InvalidPool' });
    m.startRefusals.inc({ code: 'PoolExhausted' });
    const text = await m.render();
    for (const line of [
      '# TYPE netledger_device_applies_total counter',
      'netledger_device_applies_total 1',
      'netledger_device_apply_failures_total{code="InvalidPool"} 1',
      'netledger_device_start_refusals_total{code="PoolExhausted"} 1',
      'netledger_device_starts_total 0',
      'netledger_device_nat_warnings_total 0',
      'netledger_device_leases 6',
      'netledger_device_pool_capacity{pool="dual",family="4"} 253',
      'netledger_device_pool_leased{pool="dual",family="6"} 3',
      'netledger_device_pool_reserved{pool="dual",family="4"} 1',
      'netledger_device_pool_free{pool="six",family="6"} 5',
      'netledger_device_revision_refused 1',
      'netledger_device_resident_memory_bytes 1234',
    ])
      expect(text.split('\n')).toContain(line);
    // No IPv4 series for a pool without IPv4.
    expect(text).not.toContain('pool="six",family="4"');
    expect(m.contentType).toContain('text/plain');
  });

  it('reads the snapshot once per scrape, and drops the series of a pool that is gone', async () => {
    let calls = 0;
    let current = snapshot;
    const m = createDaemonMetrics(() => {
      calls++;
      return current;
    });
    await m.render();
    expect(calls).toBe(1);
    current = { ...snapshot, pools: [], refused: false };
    const text = await m.render();
    expect(text).not.toContain('pool="dual"');
    expect(text).toContain('netledger_device_revision_refused 0');
  });
});
