import { describe, expect, it } from 'vitest';
import { createNatDriver } from './nat-driver.js';
import { renderNftRuleset } from './nft-ruleset.js';
import type { CommandResult, CommandRunner } from './run-command.js';
import { bridgePool } from './test-fixtures.js';

const a = bridgePool('internal', '10.0.5.0/24');
const b = bridgePool('lab', '10.0.6.0/24');

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
      if (tool === 'iptables') {
        const rule = args.slice(5).join(' ');
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
    const text = renderNftRuleset([a, b]);
    expect(text.match(/masquerade/g)).toHaveLength(2);
    expect(text).toContain('ip saddr 10.0.5.0/24 oifname != "br-internal" masquerade');
    expect(text.indexOf('delete table ip netledger')).toBeLessThan(
      text.indexOf('chain postrouting'),
    );
  });

  it('only removes the table when no pool wants NAT', () => {
    expect(renderNftRuleset([])).not.toContain('masquerade');
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
    expect([...f.rules]).toEqual(['-s 10.0.5.0/24 ! -o br-internal -j MASQUERADE']);
  });

  it('removes the iptables rule of a pool that left', async () => {
    const f = fakeRunner(['iptables']);
    const nat = createNatDriver({ runner: f.runner });
    await nat.apply({ pools: [a, b], previous: [] });
    await nat.apply({ pools: [b], previous: [a, b] });
    expect([...f.rules]).toEqual(['-s 10.0.6.0/24 ! -o br-lab -j MASQUERADE']);
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
});
