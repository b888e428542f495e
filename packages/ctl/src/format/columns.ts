/**
 * A plain column listing (calicoctl `get` style, Go's tabwriter with three spaces of padding):
 * upper-case header, left-aligned cells, no borders, a trailing newline per row.
 */
export function renderColumns(
  header: readonly string[],
  rows: readonly (readonly string[])[],
): string {
  const widths = header.map((h, c) => Math.max(h.length, ...rows.map((r) => (r[c] ?? '').length)));
  const line = (cells: readonly string[]): string =>
    cells
      .map((cell, c) => (c === cells.length - 1 ? cell : cell.padEnd(widths[c]! + 3)))
      .join('')
      .trimEnd() + '\n';
  return [header, ...rows].map(line).join('');
}
