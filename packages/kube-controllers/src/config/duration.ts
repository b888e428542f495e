/** Why {@link parseDuration} refused a text. */
export class DurationSyntaxError extends Error {
  override readonly name = 'DurationSyntaxError';
}

const UNIT_MS: Readonly<Record<string, number>> = {
  ns: 1e-6,
  us: 1e-3,
  '\u00b5s': 1e-3, // micro sign, as Go writes it
  '\u03bcs': 1e-3, // Greek mu, which Go accepts too
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * Parses a Go `time.Duration` string (`15m`, `1h30m`, `90s`, `0`, `1.5h`), as Kubernetes'
 * `metav1.Duration` writes it, into milliseconds. Negative durations and anything else are refused
 * with a {@link DurationSyntaxError} naming the text.
 */
export function parseDuration(text: string): number {
  const s = text.trim();
  if (s === '0') return 0;
  if (s === '' || s.startsWith('-')) {
    throw new DurationSyntaxError(
      `invalid duration ${JSON.stringify(text)}: expected e.g. 15m, 1h30m, 90s`,
    );
  }
  const body = s.startsWith('+') ? s.slice(1) : s;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (!m) {
      throw new DurationSyntaxError(
        `invalid duration ${JSON.stringify(text)}: expected e.g. 15m, 1h30m, 90s`,
      );
    }
    ms += Number(m[1]) * UNIT_MS[m[2]!]!;
    at = part.lastIndex;
  }
  if (!Number.isFinite(ms))
    throw new DurationSyntaxError(`duration ${JSON.stringify(text)} is too long`);
  return Math.round(ms);
}

/** Milliseconds as a Go-style duration string (`15m0s` is written `15m`): for logs and errors. */
export function formatDuration(ms: number): string {
  if (ms === 0) return '0s';
  const parts: string[] = [];
  let rest = ms;
  for (const [unit, size] of [
    ['h', 3_600_000],
    ['m', 60_000],
    ['s', 1000],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  if (rest > 0) parts.push(`${rest}ms`);
  return parts.join('');
}
