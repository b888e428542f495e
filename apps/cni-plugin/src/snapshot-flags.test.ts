import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SNAPSHOT_FLAGS } from './snapshot-flags.js';

describe('SNAPSHOT_FLAGS', () => {
  it("equals package.json's snapshotFlags, with which build.mjs builds the blob", () => {
    const pkg = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as {
      snapshotFlags: string[];
    };
    expect(SNAPSHOT_FLAGS).toEqual(pkg.snapshotFlags);
  });
});
