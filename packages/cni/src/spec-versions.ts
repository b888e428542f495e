import { CniError, CniErrorCode } from './cni-error.js';

/** CNI specification versions this plugin speaks, oldest first. */
export const SUPPORTED_VERSIONS = ['0.3.0', '0.3.1', '0.4.0', '1.0.0', '1.1.0'] as const;

/** A version of {@link SUPPORTED_VERSIONS}. */
export type SpecVersion = (typeof SUPPORTED_VERSIONS)[number];

/** The newest version, reported by VERSION. */
const CURRENT_VERSION: SpecVersion = '1.1.0';

const parts = (v: string): [number, number, number] | undefined => {
  const m = /^(\d+)\.(\d+)\.(\d+)$/.exec(v);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3])] : undefined;
};

/**
 * Compares two `major.minor.patch` versions (negative, zero, positive). Throws `DecodingFailure`
 * (6) for a malformed version, as libcni does.
 */
export function compareVersions(a: string, b: string): number {
  const pa = parts(a);
  const pb = parts(b);
  if (!pa || !pb) {
    const bad = pa ? b : a;
    throw new CniError(
      CniErrorCode.DecodingFailure,
      `unparsable CNI version ${JSON.stringify(bad)}`,
    );
  }
  for (let i = 0; i < 3; i++) if (pa[i] !== pb[i]) return pa[i]! - pb[i]!;
  return 0;
}

/** True when `v` is one of {@link SUPPORTED_VERSIONS}. */
export function isSupportedVersion(v: string): v is SpecVersion {
  return (SUPPORTED_VERSIONS as readonly string[]).includes(v);
}

/** The version JSON printed by VERSION (skel's `PluginInfo.Encode`). */
export function versionInfo(): { cniVersion: SpecVersion; supportedVersions: SpecVersion[] } {
  return { cniVersion: CURRENT_VERSION, supportedVersions: [...SUPPORTED_VERSIONS] };
}
