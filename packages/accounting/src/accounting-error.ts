/** Machine-readable reason an accounting function refused its input. */
export type AccountingErrorCode = 'InvalidIp' | 'InvalidCidr' | 'OutOfRange';

/** The one error class of this package; callers match on `code`, never on the message. */
export class AccountingError extends Error {
  /** Why the input was refused. */
  readonly code: AccountingErrorCode;

  constructor(code: AccountingErrorCode, message: string) {
    super(message);
    this.name = 'AccountingError';
    this.code = code;
  }
}
