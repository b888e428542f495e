import { iptablesRuleArgs, renderNftRuleset } from './nft-ruleset.js';
import type { Pool } from './pool.js';
import type { CommandRunner } from './run-command.js';

/** Which tool installed the NAT rules; `none` when neither worked. */
export type NatBackend = 'nftables' | 'iptables' | 'none';

/** The NAT pools to install and the ones installed before (so stale rules can be removed). */
export interface NatApplyArgs {
  readonly pools: readonly Pool[];
  readonly previous: readonly Pool[];
}

/** What a NAT apply did; `warnings` are logged, never thrown: NAT failure leaves pools usable. */
export interface NatApplyResult {
  readonly backend: NatBackend;
  readonly warnings: readonly string[];
}

/** Installs masquerade rules for NAT pools. */
export interface NatDriver {
  apply(args: NatApplyArgs): Promise<NatApplyResult>;
}

/**
 * A {@link NatDriver} that prefers nftables (one atomic `nft -f -` replacing netledger's own
 * table) and falls back to iptables (`-C` before `-A`, stale rules removed with `-D`). When
 * neither tool is installed or both fail, it returns a warning and the pools run without NAT.
 */
export function createNatDriver(opts: { readonly runner: CommandRunner }): NatDriver {
  const { runner } = opts;
  return {
    async apply({ pools, previous }) {
      const warnings: string[] = [];
      const nft = await runner.which('nft');
      if (nft !== undefined) {
        const r = await runner.run(nft, ['-f', '-'], { input: renderNftRuleset(pools) });
        if (r.code === 0) return { backend: 'nftables', warnings };
        warnings.push(`nft failed (exit ${r.code}): ${r.stderr.trim().slice(0, 300)}`);
      }
      const iptables = await runner.which('iptables');
      if (iptables !== undefined) {
        const wanted = new Set(pools.map((p) => iptablesRuleArgs(p).join(' ')));
        for (const old of previous) {
          if (wanted.has(iptablesRuleArgs(old).join(' '))) continue;
          await runner.run(iptables, [
            '-w',
            '-t',
            'nat',
            '-D',
            'POSTROUTING',
            ...iptablesRuleArgs(old),
          ]);
        }
        let ok = true;
        for (const pool of pools) {
          const rule = iptablesRuleArgs(pool);
          const check = await runner.run(iptables, [
            '-w',
            '-t',
            'nat',
            '-C',
            'POSTROUTING',
            ...rule,
          ]);
          if (check.code === 0) continue;
          const add = await runner.run(iptables, ['-w', '-t', 'nat', '-A', 'POSTROUTING', ...rule]);
          if (add.code !== 0) {
            ok = false;
            warnings.push(
              `iptables failed for pool ${pool.name} (exit ${add.code}): ${add.stderr.trim().slice(0, 300)}`,
            );
          }
        }
        if (ok) return { backend: 'iptables', warnings };
      }
      if (nft === undefined && iptables === undefined && pools.length > 0) {
        warnings.push(
          `neither nftables (nft) nor iptables available; cannot set up NAT for pool(s) ${pools.map((p) => p.name).join(', ')}`,
        );
      }
      return { backend: 'none', warnings };
    },
  };
}
