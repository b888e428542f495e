/**
 * Go's `fmt` float verbs, reproduced exactly for the output calicoctl prints: `%.5g` for address
 * counts and `%.f` for percentages. Both round the float64's exact decimal value half to even
 * (Go's `strconv`), where JS's `toPrecision`/`toFixed` round ties up and write `1.3107e+5`.
 */

/** A decimal: value = 0.d1d2d3... x 10^dp, no trailing zeros in `digits` ("" is zero). */
interface Decimal {
  readonly digits: string;
  readonly dp: number;
}

/** The exact decimal value of a finite, non-negative double. */
function exactDecimal(x: number): Decimal {
  if (x === 0) return { digits: '', dp: 0 };
  let text: string;
  if (Number.isInteger(x)) text = BigInt(x).toString();
  else {
    // 100 significant digits hold every double of magnitude 1e-30 .. 2^53 exactly.
    const [mantissa = '', exp = '0'] = x.toPrecision(100).split('e');
    const [int = '', frac = ''] = mantissa.split('.');
    const e = Number(exp);
    const all = int + frac;
    const lead = all.length - all.replace(/^0+/, '').length;
    const digits = all.slice(lead).replace(/0+$/, '');
    return { digits, dp: int.length + e - lead };
  }
  return { digits: text.replace(/0+$/, ''), dp: text.length };
}

/** Rounds to `nd` significant digits, half to even on an exact tie; trailing zeros trimmed. */
function roundDecimal(d: Decimal, nd: number): Decimal {
  if (nd < 0) return { digits: '', dp: 0 };
  if (d.digits.length <= nd) return d;
  const next = d.digits.charCodeAt(nd) - 48;
  const rest = d.digits.slice(nd + 1);
  const prev = nd > 0 ? d.digits.charCodeAt(nd - 1) - 48 : 0;
  const up = next > 5 || (next === 5 && (rest.length > 0 || prev % 2 === 1));
  let kept = d.digits.slice(0, nd);
  let dp = d.dp;
  if (up) {
    let i = kept.length - 1;
    while (i >= 0 && kept[i] === '9') i--;
    if (i < 0) {
      kept = '1';
      dp++;
    } else kept = kept.slice(0, i) + String(Number(kept[i]) + 1);
  }
  return { digits: kept.replace(/0+$/, ''), dp };
}

const digitAt = (d: Decimal, i: number): string =>
  i >= 0 && i < d.digits.length ? d.digits[i]! : '0';

function fixed(d: Decimal, fractionDigits: number): string {
  let out = '';
  if (d.dp <= 0) out = '0';
  else for (let i = 0; i < d.dp; i++) out += digitAt(d, i);
  if (fractionDigits > 0) {
    out += '.';
    for (let i = 0; i < fractionDigits; i++) out += digitAt(d, d.dp + i);
  }
  return out;
}

function exponent(d: Decimal, fractionDigits: number): string {
  let out = d.digits.length === 0 ? '0' : d.digits[0]!;
  if (fractionDigits > 0) {
    out += '.';
    for (let i = 1; i <= fractionDigits; i++) out += digitAt(d, i);
  }
  const exp = d.digits.length === 0 ? 0 : d.dp - 1;
  const abs = Math.abs(exp);
  return `${out}e${exp < 0 ? '-' : '+'}${abs < 10 ? '0' : ''}${abs}`;
}

function special(x: number): string | undefined {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return '+Inf';
  if (x === -Infinity) return '-Inf';
  return undefined;
}

const signOf = (x: number): string => (x < 0 || Object.is(x, -0) ? '-' : '');

/** Go's `fmt.Sprintf("%.<precision>g", x)` for a float64. */
export function formatGoG(x: number, precision: number): string {
  const s = special(x);
  if (s !== undefined) return s;
  let prec = precision === 0 ? 1 : precision;
  const d = roundDecimal(exactDecimal(Math.abs(x)), prec);
  let eprec = prec;
  if (eprec > d.digits.length && d.digits.length >= d.dp) eprec = d.digits.length;
  const exp = d.dp - 1;
  if (exp < -4 || exp >= eprec) {
    if (prec > d.digits.length) prec = d.digits.length;
    return signOf(x) + exponent(d, Math.max(prec - 1, 0));
  }
  if (prec > d.dp) prec = d.digits.length;
  return signOf(x) + fixed(d, Math.max(prec - d.dp, 0));
}

/** Go's `fmt.Sprintf("%.<precision>f", x)` for a float64 (`%.f` is precision 0). */
export function formatGoF(x: number, precision = 0): string {
  const s = special(x);
  if (s !== undefined) return s;
  const exact = exactDecimal(Math.abs(x));
  const d = roundDecimal(exact, exact.dp + precision);
  return signOf(x) + fixed(d, precision);
}
