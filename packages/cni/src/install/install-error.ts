/** An install or uninstall that could not complete (exit status 1); nothing is left half-written. */
export class InstallError extends Error {
  override readonly name = 'InstallError';
}

/** A usage error of `netledger-ipam install` or `install-cni` (exit status 2). */
export class InstallUsageError extends Error {
  override readonly name = 'InstallUsageError';
}
