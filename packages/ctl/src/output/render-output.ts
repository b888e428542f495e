import { stringify } from 'yaml';
import { CtlError } from '../ctl-error.js';
import { formatJson } from './format-json.js';

/** Output formats of listing commands. */
export type OutputFormat = 'table' | 'json' | 'yaml';

/** Parses `-o`; `Usage` error for anything else. */
export function parseOutputFormat(text: string | undefined, fallback: OutputFormat): OutputFormat {
  if (text === undefined) return fallback;
  if (text === 'table' || text === 'json' || text === 'yaml') return text;
  throw new CtlError(
    'Usage',
    `unknown output format ${JSON.stringify(text)} (table, json or yaml)`,
  );
}

/** Renders data as JSON or YAML (with a trailing newline), or through `table` for `table`. */
export function renderOutput(format: OutputFormat, data: unknown, table: () => string): string {
  switch (format) {
    case 'json':
      return formatJson(data) + '\n';
    case 'yaml':
      return stringify(toYamlSafe(data));
    case 'table':
      return table();
  }
}

/** YAML has no bigint: exact integers past 2^53 are written as their decimal text. */
function toYamlSafe(v: unknown): unknown {
  if (typeof v === 'bigint') return v.toString();
  if (Array.isArray(v)) return v.map(toYamlSafe);
  if (v !== null && typeof v === 'object') {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toYamlSafe(x)]));
  }
  return v;
}
