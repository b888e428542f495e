import type { IpFamily } from './address.js';
import { iptablesRuleArgs, natSides, renderNftRuleset } from './nft-ruleset.js';
import type { Pool } from './pool.js';
import type { CommandRunner } from './run-command.js';

/** Which tool installed the NAT rules (`iptables` covers ip6tables); `none` when none worked. */
export type NatBackend = 'nftables' | 'iptables' | 'none';

/**
 * The pools to masquerade, each in the families whose NAT flag is set (`nat`, `nat6`), and the
 * ones masqueraded before (so stale rules can be removed).
 */
export interface NatApplyArgs {
  readonly pools: readonly Pool[];
  readonly previous: readonly Pool[];
}

/** What a NAT apply did; `warnings` are logged, never thrown: NAT failure leaves pools usable. */
interface NatApplyResult {
  readonly backend: NatBackend;
  readonly warnings: readonly string[];
}

/** Installs masquerade rules for NAT pools. */
export interface NatDriver {
  apply(args: NatApplyArgs): Promise<NatApplyResult>;
}

const TOOL: Record<IpFamily, string> = { 4: 'iptables', 6: 'ip6tables' };

/**
 * A {@link NatDriver} that prefers nftables (one atomic `nft -f -` replacing netledger's own
 * tables) and falls back to iptables for IPv4 and ip6tables for IPv6 (`-C` before `-A`, stale
 * rules removed with `-D`). When no tool works for a family, it returns a warning and that
 * family's pools run without NAT.
 */
export function createNatDriver(opts: { readonly runner: CommandRunner }): NatDriver {
  const { runner } = opts;

  /**
   * One family through iptables or ip6tables (`tool`, resolved on PATH, or undefined when not
   * installed): stale rules removed, wanted ones checked then appended. Returns whether this
   * family now has every rule it wants, or undefined when it wants none.
   */
  async function viaIptables(args: {
    readonly family: IpFamily;
    readonly tool: string | undefined;
    readonly nat: NatApplyArgs;
    readonly warnings: string[];
  }): Promise<boolean | undefined> {
    const { family, tool, warnings } = args;
    const wanted = natSides(args.nat.pools, family);
    const before = natSides(args.nat.previous, family);
    if (tool === undefined) {
      if (wanted.length === 0) return undefined;
      warnings.push(
        `${TOOL[family]} not available; cannot set up NAT for pool(s) ${wanted.map((w) => w.pool.name).join(', ')}`,
      );
      return false;
    }
    const keep = new Set(wanted.map(({ pool, side }) => iptablesRuleArgs(pool, side).join(' ')));
    for (const { pool, side } of before) {
      const rule = iptablesRuleArgs(pool, side);
      if (keep.has(rule.join(' '))) continue;
      await runner.run(tool, ['-w', '-t', 'nat', '-D', 'POSTROUTING', ...rule]);
    }
    if (wanted.length === 0) return undefined;
    let ok = true;
    for (const { pool, side } of wanted) {
      const rule = iptablesRuleArgs(pool, side);
      const check = await runner.run(tool, ['-w', '-t', 'nat', '-C', 'POSTROUTING', ...rule]);
      if (check.code === 0) continue;
      const add = await runner.run(tool, ['-w', '-t', 'nat', '-A', 'POSTROUTING', ...rule]);
      if (add.code !== 0) {
        ok = false;
        warnings.push(
          `${TOOL[family]} failed for pool ${pool.name} (exit ${add.code}): ${add.stderr.trim().slice(0, 300)}`,
        );
      }
    }
    return ok;
  }

  return {
    async apply(nat) {
      const warnings: string[] = [];
      const nft = await runner.which('nft');
      if (nft !== undefined) {
        const r = await runner.run(nft, ['-f', '-'], { input: renderNftRuleset(nat) });
        if (r.code === 0) return { backend: 'nftables', warnings };
        warnings.push(`nft failed (exit ${r.code}): ${r.stderr.trim().slice(0, 300)}`);
      }
      const tools = { 4: await runner.which(TOOL[4]), 6: await runner.which(TOOL[6]) };
      if (nft === undefined && tools[4] === undefined && tools[6] === undefined) {
        const names = new Set(
          [...natSides(nat.pools, 4), ...natSides(nat.pools, 6)].map((w) => w.pool.name),
        );
        if (names.size > 0) {
          warnings.push(
            `neither nftables (nft) nor iptables available; cannot set up NAT for pool(s) ${[...names].join(', ')}`,
          );
        }
        return { backend: 'none', warnings };
      }
      const results = [
        await viaIptables({ family: 4, tool: tools[4], nat, warnings }),
        await viaIptables({ family: 6, tool: tools[6], nat, warnings }),
      ];
      // `iptables` when the tools installed at least one family's rules; warnings name the rest.
      return { backend: results.includes(true) ? 'iptables' : 'none', warnings };
    },
  };
}
