/**
 * Why a command refused or failed, for the CLI to map to an exit code: `Usage` (bad flags or
 * arguments, exit 2), `InvalidInput` (a bad file, CIDR or value), `NotAvailable` (a feature this
 * version lacks), `Refused` (a safety check said no), `Failed` (the operation ran and failed).
 */
export type CtlErrorCode = 'Usage' | 'InvalidInput' | 'NotAvailable' | 'Refused' | 'Failed';

/** The error of the ctl commands that are not IPAM errors (those stay `IpamError`). */
export class CtlError extends Error {
  override readonly name = 'CtlError';
  constructor(
    readonly code: CtlErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** True when `e` is a {@link CtlError}, optionally with one of the given codes. */
export function isCtlError(e: unknown, ...codes: CtlErrorCode[]): e is CtlError {
  return e instanceof CtlError && (codes.length === 0 || codes.includes(e.code));
}
