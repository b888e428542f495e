import { parseArgs } from 'node:util';
import { InstallUsageError } from './install-error.js';

/**
 * Parses `--flag VALUE` / `--flag=VALUE` for `names` (no positional arguments). Throws
 * {@link InstallUsageError} for an unknown flag or argument, a flag given twice, or a missing or
 * empty value.
 */
export function parseStringFlags<N extends string>(
  argv: readonly string[],
  names: readonly N[],
): Partial<Record<N, string>> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: Object.fromEntries(names.map((n) => [n, { type: 'string' as const }])),
      strict: true,
      allowPositionals: false,
      tokens: true,
    });
  } catch (e) {
    throw new InstallUsageError((e as Error).message.split('\n')[0]);
  }
  const seen = new Set<string>();
  for (const t of parsed.tokens) {
    if (t.kind !== 'option') continue;
    if (seen.has(t.name)) throw new InstallUsageError(`--${t.name} is given twice`);
    if (t.value === undefined || t.value === '')
      throw new InstallUsageError(`--${t.name} needs a value`);
    seen.add(t.name);
  }
  return parsed.values as Partial<Record<N, string>>;
}
