/** What went wrong, for callers that match on it (never on the message). */
export type KubeTestApiserverErrorCode =
  'USAGE' | 'NO_GO_TOOLCHAIN' | 'NOT_BUILT' | 'BUILD_FAILED' | 'BAD_BINARY' | 'START_FAILED';

/** The one error class of kube-test-apiserver; the message says what to do about it. */
export class KubeTestApiserverError extends Error {
  override readonly name = 'KubeTestApiserverError';
  constructor(
    readonly code: KubeTestApiserverErrorCode,
    message: string,
  ) {
    super(message);
  }
}
