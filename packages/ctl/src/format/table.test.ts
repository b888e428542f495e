import { describe, expect, it } from 'vitest';
import { formatCount, formatCountShare } from './cells.js';
import { renderTable } from './table.js';

describe('renderTable', () => {
  it('renders the calicoctl v3.33 utilization layout', () => {
    const text = renderTable({
      header: ['GROUPING', 'CIDR', 'IPS TOTAL', 'IPS IN USE', 'IPS RESERVED', 'IPS FREE'],
      rows: [
        ['IP Pool', '10.65.0.0/16', '65536', '5 (0%)', '0 (0%)', '65531 (100%)'],
        ['Block', '10.65.79.0/26', '64', '5 (8%)', '0 (0%)', '59 (92%)'],
      ],
      align: ['left', 'left', 'right', 'right', 'right', 'right'],
    });
    expect(text).toBe(
      [
        '+----------+---------------+-----------+------------+--------------+--------------+',
        '| GROUPING | CIDR          | IPS TOTAL | IPS IN USE | IPS RESERVED | IPS FREE     |',
        '+----------+---------------+-----------+------------+--------------+--------------+',
        '| IP Pool  | 10.65.0.0/16  |     65536 |     5 (0%) |       0 (0%) | 65531 (100%) |',
        '| Block    | 10.65.79.0/26 |        64 |     5 (8%) |       0 (0%) |     59 (92%) |',
        '+----------+---------------+-----------+------------+--------------+--------------+',
        '',
      ].join('\n'),
    );
  });

  it('renders an empty table with header separator and bottom border', () => {
    expect(renderTable({ header: ['A', 'BB'], rows: [] })).toBe(
      '+---+----+\n| A | BB |\n+---+----+\n+---+----+\n',
    );
  });
});

describe('cells', () => {
  it('formats counts and shares', () => {
    expect(formatCount(65536)).toBe('65536');
    expect(formatCount(2n ** 80n)).toBe('1.2089e+24');
    expect(formatCountShare(5, 8)).toBe('5 (62%)');
    expect(formatCountShare(3, 8)).toBe('3 (38%)');
    expect(formatCountShare(2n ** 80n - 7n, 2n ** 80n)).toBe('1.2089e+24 (100%)');
  });
});
