/** Horizontal alignment of a column's data cells (headers are always left-aligned). */
type ColumnAlign = 'left' | 'right';

/** A table to render: header labels, rows of cells, and per-column alignment (default left). */
export interface TableSpec {
  readonly header: readonly string[];
  readonly rows: readonly (readonly string[])[];
  readonly align?: readonly ColumnAlign[];
}

const width = (s: string): number => [...s].length;

/**
 * Renders a table as go-pretty v6's `StyleDefault` does for calicoctl v3.33: ASCII `+ - |`
 * borders, one space of padding, left-aligned headers, no separators between rows, a trailing
 * newline. A table without rows keeps go-pretty's header separator and bottom border.
 */
export function renderTable(spec: TableSpec): string {
  const cols = spec.header.length;
  const widths = spec.header.map((h, c) =>
    Math.max(width(h), ...spec.rows.map((r) => width(r[c] ?? ''))),
  );
  const rule = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+\n`;
  const line = (cells: readonly string[], aligned: boolean): string => {
    const parts: string[] = [];
    for (let c = 0; c < cols; c++) {
      const text = cells[c] ?? '';
      const pad = ' '.repeat(widths[c]! - width(text));
      const right = aligned && spec.align?.[c] === 'right';
      parts.push(right ? pad + text : text + pad);
    }
    return `| ${parts.join(' | ')} |\n`;
  };
  return (
    rule + line(spec.header, false) + rule + spec.rows.map((r) => line(r, true)).join('') + rule
  );
}
