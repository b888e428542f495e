import type { IpFamily } from './address.js';
import type { Pool, PoolFamily } from './pool.js';
import { poolFamily } from './pool.js';

/** The nftables tables owned by netledger (`table ip netledger`, `table ip6 netledger`); nothing else is touched. */
const NFT_TABLE = 'netledger';

/** The pools masqueraded in one family, with that family's side of each. */
export function natSides(
  pools: readonly Pool[],
  family: IpFamily,
): { readonly pool: Pool; readonly side: PoolFamily }[] {
  return pools.flatMap((pool) => {
    const side = poolFamily(pool, family);
    return side?.nat === true ? [{ pool, side }] : [];
  });
}

/**
 * Renders an `nft -f` script that atomically replaces netledger's tables with one masquerade rule
 * per NAT pool and family (`ip saddr <subnet> oifname != "<bridge>" masquerade`, and `ip6 saddr`
 * for `nat6`). With no pool a table is only removed. Declaring a table before deleting it makes
 * the delete safe when it does not exist yet, so applying the script any number of times leaves
 * the same ruleset. The `ip6` table is left alone unless NAT66 is wanted now or was before, so a
 * host without IPv6 NAT support is never asked for it.
 */
export function renderNftRuleset(args: {
  readonly pools: readonly Pool[];
  readonly previous: readonly Pool[];
}): string {
  const lines: string[] = [];
  for (const family of [4, 6] as const) {
    const sides = natSides(args.pools, family);
    if (family === 6 && sides.length === 0 && natSides(args.previous, 6).length === 0) continue;
    const table = `${family === 4 ? 'ip' : 'ip6'} ${NFT_TABLE}`;
    lines.push(`table ${table} {`, '}', `delete table ${table}`);
    if (sides.length === 0) continue;
    lines.push(
      `table ${table} {`,
      '\tchain postrouting {',
      '\t\ttype nat hook postrouting priority srcnat; policy accept;',
      ...sides.map(
        ({ pool, side }) =>
          `\t\t${family === 4 ? 'ip' : 'ip6'} saddr ${side.subnet} oifname != "${pool.bridge}" masquerade comment "pool ${pool.name}"`,
      ),
      '\t}',
      '}',
    );
  }
  return lines.join('\n') + '\n';
}

/** The iptables / ip6tables arguments (after `-t nat -X POSTROUTING`) of a pool family's masquerade rule. */
export function iptablesRuleArgs(pool: Pool, side: PoolFamily): string[] {
  return ['-s', side.subnet, '!', '-o', pool.bridge, '-j', 'MASQUERADE'];
}
