import { DeviceError } from './device-error.js';
import { isObject } from './json-value.js';
import type { RevisionFiles } from './revision.js';

/** Encodes a revision's files (the last good one, kept beside the leases) as JSON text. */
export function encodeRevisionFile(files: RevisionFiles): string {
  return `${JSON.stringify({ version: 1, deviceJson: files.deviceJson ?? null, containers: files.containers })}\n`;
}

/** Decodes what {@link encodeRevisionFile} wrote. Throws `LeaseStoreCorrupt` for anything else. */
export function decodeRevisionFile(text: string): RevisionFiles {
  const fail = (why: string): never => {
    throw new DeviceError('LeaseStoreCorrupt', `last good revision file: ${why}`);
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return fail('not valid JSON');
  }
  if (!isObject(doc) || doc['version'] !== 1) return fail('unknown format (expected version 1)');
  const deviceJson = doc['deviceJson'];
  const containers = doc['containers'];
  if ((deviceJson !== null && typeof deviceJson !== 'string') || !Array.isArray(containers))
    return fail('missing sections');
  const text3 = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';
  const out: RevisionFiles['containers'][number][] = [];
  for (const c of containers as unknown[]) {
    if (
      !isObject(c) ||
      typeof c['name'] !== 'string' ||
      !text3(c['runJson']) ||
      !text3(c['lxcConfig'])
    )
      return fail('bad container entry');
    out.push({ name: c['name'], runJson: c['runJson'], lxcConfig: c['lxcConfig'] });
  }
  return { deviceJson: deviceJson ?? undefined, containers: out };
}
