import { stringify } from 'yaml';
import { CtlError } from '../ctl-error.js';
import { formatJson } from './format-json.js';

/**
 * Output formats (`-o`): `table` (calicoctl's `ps`, also accepted by that name), `wide` (the table
 * with more columns), `json`, `yaml`, and `html` (`ipam show --show-blocks` only).
 */
export type OutputFormat = 'table' | 'wide' | 'json' | 'yaml' | 'html';

/** The formats most commands take. */
const DATA_FORMATS: readonly OutputFormat[] = ['table', 'json', 'yaml'];

/**
 * Parses `-o` against the formats a command takes (`ps` is calicoctl's name for `table`);
 * `Usage` error naming them for anything else.
 */
export function parseOutputFormat(
  text: string | undefined,
  fallback: OutputFormat,
  allowed: readonly OutputFormat[] = DATA_FORMATS,
): OutputFormat {
  if (text === undefined) return fallback;
  const format = text === 'ps' ? 'table' : text;
  if ((allowed as readonly string[]).includes(format)) return format as OutputFormat;
  const names = allowed.join(', ');
  throw new CtlError('Usage', `unknown output format ${JSON.stringify(text)} (${names})`);
}

/**
 * Renders data as JSON or YAML (with a trailing newline), or through `table` for `table` and
 * `wide` (its argument says which). `html` is a command's own and is refused here.
 */
export function renderOutput(
  format: OutputFormat,
  data: unknown,
  table: (wide: boolean) => string,
): string {
  switch (format) {
    case 'json':
      return formatJson(data) + '\n';
    case 'yaml':
      return stringify(toYamlSafe(data));
    case 'table':
    case 'wide':
      return table(format === 'wide');
    case 'html':
      throw new CtlError('Usage', 'output format "html" is only for ipam show --show-blocks');
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
