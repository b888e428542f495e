import { CniError, CniErrorCode } from './cni-error.js';
import type { CniCommand } from './cni-request.js';
import { SUPPORTED_VERSIONS, compareVersions, isSupportedVersion } from './spec-versions.js';
import type { SpecVersion } from './spec-versions.js';

const incompatible = (msg: string, details?: string): CniError =>
  new CniError(CniErrorCode.IncompatibleCniVersion, msg, details === undefined ? {} : { details });

/**
 * libcni skel's version gates: CHECK needs 0.4.0, GC and STATUS 1.1.0, all a supported version.
 * Returns the config's version; throws {@link CniError} (code 1, incompatible CNI versions) for a
 * version below the command's minimum or not supported, and code 6 (decoding failure) for one
 * that is not a version.
 */
export function gateVersion(command: CniCommand, version: string): SpecVersion {
  compareVersions(version, '0.0.0');
  const minimum =
    command === 'CHECK' ? '0.4.0' : command === 'GC' || command === 'STATUS' ? '1.1.0' : undefined;
  if (minimum !== undefined && compareVersions(version, minimum) < 0) {
    throw incompatible(`config version does not allow ${command}`);
  }
  if (!isSupportedVersion(version)) {
    throw incompatible(
      'incompatible CNI versions',
      `config is "${version}", plugin supports ${JSON.stringify(SUPPORTED_VERSIONS)}`,
    );
  }
  return version;
}
