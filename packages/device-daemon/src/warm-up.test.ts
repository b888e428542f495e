import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { warmUp } from './warm-up.js';

const warmUpDirs = (): string[] =>
  readdirSync(tmpdir()).filter((n) => n.startsWith('netledger-device-warm-up-'));

describe('warmUp', () => {
  it('runs every client verb against its fake daemon and removes its socket directory', async () => {
    const before = warmUpDirs();
    await expect(warmUp()).resolves.toBeUndefined();
    expect(warmUpDirs()).toEqual(before);
  });
});
