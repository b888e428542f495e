/** A sorted set of strings with prefix scans: the ordered index behind key-ordered lists. */
export class SortedKeys {
  private readonly keys: string[] = [];

  /** Index of the first key >= `k`. */
  private lowerBound(k: string): number {
    let lo = 0;
    let hi = this.keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.keys[mid]! < k) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** Adds `k` if absent. */
  add(k: string): void {
    const i = this.lowerBound(k);
    if (this.keys[i] !== k) this.keys.splice(i, 0, k);
  }

  /** Removes `k` if present. */
  delete(k: string): void {
    const i = this.lowerBound(k);
    if (this.keys[i] === k) this.keys.splice(i, 1);
  }

  /** Keys starting with `prefix`, in order. */
  *withPrefix(prefix: string): Generator<string> {
    for (let i = this.lowerBound(prefix); i < this.keys.length; i++) {
      const k = this.keys[i]!;
      if (!k.startsWith(prefix)) return;
      yield k;
    }
  }
}
