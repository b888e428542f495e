/**
 * The pid in the name of a lock's prepared file, `<lock>-<pid>-<nonce>` (and `<lock>.<pid>.<hex>`,
 * as the CNI host lock named them before this package); undefined for any other name.
 */
export function preparedFilePid(lockName: string, name: string): number | undefined {
  if (!name.startsWith(lockName)) return undefined;
  const m = /^[-.](\d+)[-.]\w+$/.exec(name.slice(lockName.length));
  const pid = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
}
