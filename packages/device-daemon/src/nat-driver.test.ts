import { describe, expect, it } from 'vitest';
import { createNatDriver } from './nat-driver.js';
import { renderNftRuleset } from './nft-ruleset.js';
import type { CommandResult, CommandRunner } from './run-command.js';
import { bridgePool, bridgePool6 } from './test-fixtures.js';

const a = bridgePool('internal', '10.0.5.0/24', { nat: true });
const b = bridgePool('lab', '10.0.6.0/24', { nat: true });
// Dual-stack, masqueraded in both families; and IPv6-only, masqueraded.
const d = bridgePool('dual', '10.0.7.0/24', {
  nat: true,
  subnet6: 'fd00:7::/64',
  gateway6: 'fd00:7::1',
  nat6: true,
});
const six = bridgePool6('six', 'fd00:8::/64', { nat6: true });

/** A fake runner: `installed` tools exist; `rules` simulates the iptables nat table. */
function fakeRunner(installed: string[], fail: string[] = []) {
  const calls: string[][] = [];
  const rules = new Set<string>();
  const runner: CommandRunner = {
    async which(name) {
      return installed.includes(name) ? `/usr/sbin/${name}` : undefined;
    },
    async run(file, args, opts): Promise<CommandResult> {
      calls.push([file, ...args, ...(opts?.input === undefined ? [] : ['<stdin>'])]);
      const tool = file.split('/').pop()!;
      if (fail.includes(tool)) return { code: 1, stdout: '', stderr: 'boom' };
      if (tool === 'iptables' || tool === 'ip6tables') {
        const rule = `${tool} ${args.slice(5).join(' ')}`;
        const op = args[3];
        if (op === '-C') return { code: rules.has(rule) ? 0 : 1, stdout: '', stderr: '' };
        if (op === '-A') rules.add(rule);
        if (op === '-D') rules.delete(rule);
      }
      return { code: 0, stdout: '', stderr: '' };
    },
  };
  return { runner, calls, rules };
}

describe('renderNftRuleset', () => {
  it('replaces netledger’s table with one masquerade rule per pool', () => {
    const text = renderNftRuleset({ pools: [a, b], previous: [] });
    expect(text.match(/masquerade/g)).toHaveLength(2);
    expect(text).toContain('ip saddr 10.0.5.0/24 oifname != "br-internal" masquerade');
    expect(text.indexOf('delete table ip netledger')).toBeLessThan(
      text.indexOf('chain postrouting'),
    );
  });

  it('only removes the table when no pool wants NAT', () => {
    expect(renderNftRuleset({ pools: [], previous: [a] })).not.toContain('masquerade');
  });

  it('leaves the ip6 table alone unless NAT66 is wanted now or was before', () => {
    expect(renderNftRuleset({ pools: [a], previous: [] })).not.toContain('ip6');
    const both = renderNftRuleset({ pools: [d, six], previous: [] });
    expect(both).toContain('ip saddr 10.0.7.0/24 oifname != "br-dual" masquerade');
    expect(both).toContain('ip6 saddr fd00:7::/64 oifname != "br-dual" masquerade');
    expect(both).toContain('ip6 saddr fd00:8::/64 oifname != "br-six" masquerade');
    expect(both.match(/masquerade/g)).toHaveLength(3);
    // NAT66 dropped: the ip6 table is removed, and nothing is recreated in it.
    const after = renderNftRuleset({ pools: [a], previous: [d] });
    expect(after).toContain('delete table ip6 netledger');
    expect(after).not.toContain('table ip6 netledger {\n\tchain');
  });

  it('masquerades only the families whose flag is set', () => {
    const v4only = bridgePool('v4nat', '10.0.9.0/24', {
      nat: true,
      subnet6: 'fd00:9::/64',
      gateway6: 'fd00:9::1',
    });
    expect(renderNftRuleset({ pools: [v4only], previous: [] })).not.toContain('ip6');
  });
});

describe('createNatDriver', () => {
  it('prefers nftables and applies one script', async () => {
    const f = fakeRunner(['nft', 'iptables']);
    expect(await createNatDriver({ runner: f.runner }).apply({ pools: [a], previous: [] })).toEqual(
      { backend: 'nftables', warnings: [] },
    );
    expect(f.calls).toEqual([['/usr/sbin/nft', '-f', '-', '<stdin>']]);
  });

  it('falls back to iptables, checking before appending, so re-applying adds nothing', async () => {
    const f = fakeRunner(['iptables']);
    const nat = createNatDriver({ runner: f.runner });
    await nat.apply({ pools: [a], previous: [] });
    await nat.apply({ pools: [a], previous: [a] });
    expect(f.calls.filter((c) => c.includes('-A'))).toHaveLength(1);
    expect([...f.rules]).toEqual(['iptables -s 10.0.5.0/24 ! -o br-internal -j MASQUERADE']);
  });

  it('removes the iptables rule of a pool that left', async () => {
    const f = fakeRunner(['iptables']);
    const nat = createNatDriver({ runner: f.runner });
    await nat.apply({ pools: [a, b], previous: [] });
    await nat.apply({ pools: [b], previous: [a, b] });
    expect([...f.rules]).toEqual(['iptables -s 10.0.6.0/24 ! -o br-lab -j MASQUERADE']);
  });

  it('falls back to iptables when nft fails', async () => {
    const f = fakeRunner(['nft', 'iptables'], ['nft']);
    const r = await createNatDriver({ runner: f.runner }).apply({ pools: [a], previous: [] });
    expect(r.backend).toBe('iptables');
    expect(r.warnings).toHaveLength(1);
  });

  it('warns and carries on with neither tool', async () => {
    const f = fakeRunner([]);
    const r = await createNatDriver({ runner: f.runner }).apply({ pools: [a], previous: [] });
    expect(r.backend).toBe('none');
    expect(r.warnings[0]).toContain('neither nftables');
    expect(f.calls).toEqual([]);
  });

  it('masquerades IPv6 with ip6tables, and removes the rule when NAT66 goes', async () => {
    const f = fakeRunner(['iptables', 'ip6tables']);
    const nat = createNatDriver({ runner: f.runner });
    expect(await nat.apply({ pools: [d, six], previous: [] })).toEqual({
      backend: 'iptables',
      warnings: [],
    });
    expect([...f.rules].sort()).toEqual([
      'ip6tables -s fd00:7::/64 ! -o br-dual -j MASQUERADE',
      'ip6tables -s fd00:8::/64 ! -o br-six -j MASQUERADE',
      'iptables -s 10.0.7.0/24 ! -o br-dual -j MASQUERADE',
    ]);
    await nat.apply({ pools: [a], previous: [d, six] });
    expect([...f.rules]).toEqual(['iptables -s 10.0.5.0/24 ! -o br-internal -j MASQUERADE']);
  });

  it('warns for IPv6 without ip6tables and still masquerades IPv4', async () => {
    const f = fakeRunner(['iptables']);
    const r = await createNatDriver({ runner: f.runner }).apply({ pools: [d], previous: [] });
    expect(r.backend).toBe('iptables');
    expect(r.warnings).toEqual([expect.stringContaining('ip6tables not available')]);
    expect([...f.rules]).toEqual(['iptables -s 10.0.7.0/24 ! -o br-dual -j MASQUERADE']);
  });
});
