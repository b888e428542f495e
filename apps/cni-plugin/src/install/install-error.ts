/** An install or uninstall that could not complete (exit status 1); nothing is left half-written. */
export class InstallError extends Error {
  override readonly name = 'InstallError';
}
