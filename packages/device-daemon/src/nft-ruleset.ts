import type { Pool } from './pool.js';

/** The nftables table owned by netledger; nothing else in the ruleset is touched. */
export const NFT_TABLE = 'netledger';

/**
 * Renders an `nft -f` script that atomically replaces netledger's table with one masquerade rule
 * per NAT pool (`ip saddr <subnet> oifname != "<bridge>" masquerade`). With no pool the script
 * only removes the table. Declaring the table before deleting it makes the delete safe when the
 * table does not exist yet, so applying the script any number of times leaves the same ruleset.
 */
export function renderNftRuleset(pools: readonly Pool[]): string {
  const lines = [`table ip ${NFT_TABLE} {`, '}', `delete table ip ${NFT_TABLE}`];
  if (pools.length > 0) {
    lines.push(
      `table ip ${NFT_TABLE} {`,
      '\tchain postrouting {',
      '\t\ttype nat hook postrouting priority srcnat; policy accept;',
      ...pools.map(
        (p) =>
          `\t\tip saddr ${p.subnet} oifname != "${p.bridge}" masquerade comment "pool ${p.name}"`,
      ),
      '\t}',
      '}',
    );
  }
  return lines.join('\n') + '\n';
}

/** The iptables arguments (after `-t nat -X POSTROUTING`) of a pool's masquerade rule. */
export function iptablesRuleArgs(pool: Pool): string[] {
  return ['-s', pool.subnet, '!', '-o', pool.bridge, '-j', 'MASQUERADE'];
}
