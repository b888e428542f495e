import { IpamError } from '@netledger/ipam-core';
import { expect } from 'vitest';
import { createFileDatastore } from './file-datastore.js';

/** Opens (and closes) a file store at `path`, expecting the open to fail; returns its IpamError. */
export async function openError(path: string, lockTimeoutMs?: number): Promise<IpamError> {
  const error: unknown = await createFileDatastore({
    path,
    ...(lockTimeoutMs && { lockTimeoutMs }),
  }).then(
    async (ds) => {
      await ds.close();
      return undefined;
    },
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(IpamError);
  return error as IpamError;
}
