import { describe, expect, it } from 'vitest';
import { renderPoolMap } from './render-pool-map.js';

const block = (
  cidr: string,
  extra: Partial<Parameters<typeof renderPoolMap>[0]['pools'][0]['blocks'][0]> = {},
) => ({
  cidr,
  capacity: 64,
  inUse: 0,
  reserved: 0,
  borrowed: 0,
  ...extra,
});

describe('renderPoolMap', () => {
  const html = renderPoolMap({
    pools: [
      {
        name: 'pods',
        cidr: '10.0.0.0/24',
        blocks: [
          block('10.0.0.0/26', { node: 'node-a', inUse: 64, borrowed: 2 }),
          block('10.0.0.64/26', { node: 'node-<b>', inUse: 0, reserved: 1 }),
          block('10.0.0.128/26'),
        ],
      },
    ],
    table: '| Block | 10.0.0.0/26 | <x> |\n',
  });

  it('is one self-contained page: inline style, no script, nothing to fetch', () => {
    expect(html).toMatch(/^<!DOCTYPE html>\n/);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/<script|<link|<img|src=|href=|url\(|@import|https?:/i);
  });

  it('draws a cell per block, coloured by node and shaded by use, with borrowed and reserved marked', () => {
    const cells = [
      ...html.matchAll(/<div class="(c[^"]*)" style="background-color:([^"]+)" title="([^"]*)"/g),
    ];
    expect(cells.map((c) => [c[1], c[2]])).toEqual([
      ['c b', 'hsl(138,70%,33%)'],
      ['c r', 'hsl(0,70%,88%)'],
      ['c', 'hsl(0,0%,88%)'],
    ]);
    expect(cells[0]![3]).toBe(
      '10.0.0.0/26\nnode: node-a\nin use 64 of 64, free 0\nreserved 0, borrowed 2',
    );
    expect(cells[1]![3]).toContain('node: node-&lt;b&gt;');
    expect(cells[2]![3]).toContain('node: (no affinity)');
  });

  it('names the pool and its block count, the nodes in a legend, and shows the text table', () => {
    expect(html).toContain('<h2>pods <small>10.0.0.0/24, 3 blocks</small></h2>');
    expect(html).toMatch(
      /<span><i class="sw" style="background:hsl\(138,70%,55%\)"><\/i>node-a<\/span>/,
    );
    expect(html).toContain('<pre>| Block | 10.0.0.0/26 | &lt;x&gt; |\n</pre>');
  });
});
