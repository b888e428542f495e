/**
 * JSON as Go's `json.MarshalIndent(v, "", "  ")` writes it: two-space indentation, `bigint` as a
 * bare integer (uint64 sequence numbers stay exact), `<`, `>`, `&`, U+2028 and U+2029 escaped,
 * `undefined` members left out. No trailing newline.
 */
export function formatJson(value: unknown, indent = '  '): string {
  return write(value, '', indent);
}

function quote(s: string): string {
  return JSON.stringify(s)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

function write(value: unknown, prefix: string, indent: string): string {
  if (value === null || value === undefined) return 'null';
  switch (typeof value) {
    case 'bigint':
      return value.toString();
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'string':
      return quote(value);
    case 'object': {
      const inner = prefix + indent;
      if (Array.isArray(value)) {
        if (value.length === 0) return '[]';
        const items = value.map((v: unknown) => inner + write(v, inner, indent));
        return `[\n${items.join(',\n')}\n${prefix}]`;
      }
      const entries = Object.entries(value as Record<string, unknown>).filter(
        ([, v]) => v !== undefined && typeof v !== 'function',
      );
      if (entries.length === 0) return '{}';
      const items = entries.map(([k, v]) => `${inner}${quote(k)}: ${write(v, inner, indent)}`);
      return `{\n${items.join(',\n')}\n${prefix}}`;
    }
    default:
      return 'null';
  }
}
