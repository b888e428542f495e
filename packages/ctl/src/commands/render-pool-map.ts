/** One block of a pool map: its counts and the node holding its affinity. */
export interface PoolMapBlock {
  readonly cidr: string;
  /** The affinity's host (`host:<node>`); absent for a block without affinity. */
  readonly node?: string;
  readonly capacity: number;
  readonly inUse: number;
  /** Addresses an IPReservation covers. */
  readonly reserved: number;
  /** Addresses used by a node other than the block's affinity host. */
  readonly borrowed: number;
}

/** One pool of a pool map, its blocks in address order. */
interface PoolMapPool {
  readonly name: string;
  readonly cidr: string;
  readonly blocks: readonly PoolMapBlock[];
}

/** What {@link renderPoolMap} draws. */
export interface PoolMap {
  readonly pools: readonly PoolMapPool[];
  /** The text output of `ipam show --show-blocks`, shown under the maps. */
  readonly table: string;
}

/** Cell geometry in CSS pixels: a test counting cells in a screenshot relies on it. */
export const POOL_MAP_CELL = { size: 10, gap: 2, columns: 64 } as const;

const escapeHtml = (s: string): string =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * A hue per node, spread by the golden angle so neighbours in sorted order stay apart; the
 * legend names them, since a few dozen hues cannot all be told apart by eye.
 */
function nodeHues(pools: readonly PoolMapPool[]): Map<string, number> {
  const nodes = [...new Set(pools.flatMap((p) => p.blocks.flatMap((b) => b.node ?? [])))].sort();
  return new Map(nodes.map((n, i) => [n, Math.round((i * 137.508) % 360)]));
}

/** Lightness by utilization: 88% for an empty block down to 33% for a full one. */
const lightness = (b: PoolMapBlock): number =>
  Math.round(88 - 55 * (b.capacity > 0 ? Math.min(1, b.inUse / b.capacity) : 0));

function cell(b: PoolMapBlock, hues: ReadonlyMap<string, number>): string {
  const hue = b.node === undefined ? undefined : hues.get(b.node);
  const colour =
    hue === undefined ? `hsl(0,0%,${lightness(b)}%)` : `hsl(${hue},70%,${lightness(b)}%)`;
  const classes = ['c', ...(b.borrowed > 0 ? ['b'] : []), ...(b.reserved > 0 ? ['r'] : [])];
  const free = b.capacity - b.inUse;
  const title =
    `${b.cidr}\nnode: ${b.node ?? '(no affinity)'}\n` +
    `in use ${b.inUse} of ${b.capacity}, free ${free}\n` +
    `reserved ${b.reserved}, borrowed ${b.borrowed}`;
  return `<div class="${classes.join(' ')}" style="background-color:${colour}" title="${escapeHtml(title)}"></div>`;
}

const CSS = `
body{font:14px/1.4 system-ui,sans-serif;margin:16px;color:#111;background:#fff}
h1{font-size:20px;margin:0 0 8px}h2{font-size:16px;margin:20px 0 6px}
.map{display:grid;grid-template-columns:repeat(${POOL_MAP_CELL.columns},${POOL_MAP_CELL.size}px);grid-auto-rows:${POOL_MAP_CELL.size}px;gap:${POOL_MAP_CELL.gap}px}
.c{position:relative;box-sizing:border-box}
.c.r{box-shadow:inset 0 0 0 2px #111}
.c.b::after{content:"";position:absolute;top:0;right:0;border-top:5px solid #111;border-left:5px solid transparent}
.c:hover{outline:2px solid #000;z-index:1}
.legend{display:flex;flex-wrap:wrap;gap:4px 14px;margin:6px 0;max-width:900px}
.legend span{display:inline-flex;align-items:center;gap:4px}
.sw{display:inline-block;width:14px;height:14px;border-radius:7px}
pre{font:12px/1.3 ui-monospace,monospace;background:#f6f6f6;padding:8px;overflow:auto}
`;

/**
 * `ipam show --show-blocks -o html`: one self-contained page (inline CSS, no script, nothing
 * fetched) with, per pool, a map of its blocks in address order (a cell each, 64 to a row,
 * coloured by the node holding the affinity, darker the more of it is in use, a dark corner when
 * addresses are borrowed from it, a dark frame when a reservation covers some; hovering names the
 * block, its node and its counts), a legend of the nodes, and the text table beneath.
 */
export function renderPoolMap(map: PoolMap): string {
  const hues = nodeHues(map.pools);
  const legend = [...hues]
    .map(
      ([node, hue]) =>
        `<span><i class="sw" style="background:hsl(${hue},70%,55%)"></i>${escapeHtml(node)}</span>`,
    )
    .join('');
  const pools = map.pools
    .map((p) => {
      const blocks = p.blocks.length;
      const cells = p.blocks.map((b) => cell(b, hues)).join('\n');
      return (
        `<section><h2>${escapeHtml(p.name)} <small>${escapeHtml(p.cidr)}, ` +
        `${blocks} block${blocks === 1 ? '' : 's'}</small></h2>\n<div class="map">\n${cells}\n</div></section>`
      );
    })
    .join('\n');
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>netledger IP pools</title>
<style>${CSS}</style></head><body>
<h1>IP pools and their blocks</h1>
<div class="legend">${legend}<span><i class="sw" style="background:hsl(0,0%,60%)"></i>no affinity</span></div>
<p>A cell per block, in address order: its colour is the node holding its affinity, darker the more addresses are in use; a dark corner marks borrowed addresses, a dark frame reserved ones. Hover a block for its counts.</p>
${pools}
<h2>Utilization</h2>
<pre>${escapeHtml(map.table)}</pre>
</body></html>
`;
}
