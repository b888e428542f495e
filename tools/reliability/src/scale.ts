/**
 * The suite's size factor: `NETLEDGER_RELIABILITY_SCALE` (a positive integer, default 1). CI runs
 * 1; docs/reliability.md's figures come from a larger run. Anything else throws at once.
 */
export function reliabilityScale(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.NETLEDGER_RELIABILITY_SCALE;
  if (raw === undefined || raw === '') return 1;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1) {
    throw new Error(
      `NETLEDGER_RELIABILITY_SCALE must be a positive integer, not ${JSON.stringify(raw)}`,
    );
  }
  return n;
}
