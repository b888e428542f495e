// Kubernetes' metav1.Time, which every Calico timestamp is (creationTimestamp, lastTransitionTime,
// affinity_claim_time, releasedAt): it reads RFC 3339 and writes `t.UTC().Format(time.RFC3339)`,
// so always UTC, always `Z`, whole seconds (k8s.io/apimachinery/pkg/apis/meta/v1/time.go,
// MarshalJSON). The zero time is written as `null`.

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/** The zero metav1.Time as RFC 3339 (what Go's zero `time.Time` formats as). */
export const GO_ZERO_TIME = '0001-01-01T00:00:00Z';

const pad = (n: number, width = 2): string => String(n).padStart(width, '0');

/**
 * An RFC 3339 time as metav1.Time writes it: in UTC with `Z`, fractional seconds dropped
 * (`2026-01-01T01:00:00.9+01:00` -> `2026-01-01T00:00:00Z`). Text that is not RFC 3339 (Calico
 * could not have read it) is returned unchanged, so netledger never invents a time.
 */
export function goTime(text: string): string {
  const m = RFC3339.exec(text);
  if (!m) return text;
  const [y, mo, d, h, mi, s] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const wall = new Date(Date.UTC(2000, mo - 1, d, h, mi, s));
  wall.setUTCFullYear(y);
  // Date.UTC rolls 31 February over into March; Go's parser refuses it, so such text is not a time.
  const valid =
    wall.getUTCMonth() === mo - 1 &&
    wall.getUTCDate() === d &&
    wall.getUTCHours() === h &&
    wall.getUTCMinutes() === mi &&
    wall.getUTCSeconds() === s;
  if (!valid) return text;
  const [, , , , , , , z, sign, oh, om] = m;
  const offsetMs = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om)) * 60_000;
  const t = new Date(wall.getTime() - offsetMs);
  const year = t.getUTCFullYear();
  if (year < 0 || year > 9999) return text;
  return (
    `${pad(year, 4)}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())}` +
    `T${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}Z`
  );
}

/** The RFC 3339 text (whole seconds, UTC) of a time in milliseconds since the epoch. */
export function goTimeFromMs(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/**
 * Go's `time.Now().UTC().String()` (`2006-01-02 15:04:05.999999999 +0000 UTC`, trailing zeros of
 * the fraction trimmed, no fraction at all on a whole second) of a time in milliseconds since the
 * epoch: the `timestamp` attribute Calico's CNI plugin and LoadBalancer controller write on an
 * allocation.
 */
export function goUtcTimestamp(ms: number): string {
  const d = new Date(ms);
  const frac = pad(d.getUTCMilliseconds(), 3).replace(/0+$/, '');
  return (
    `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())} ` +
    `${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}` +
    `${frac === '' ? '' : `.${frac}`} +0000 UTC`
  );
}
