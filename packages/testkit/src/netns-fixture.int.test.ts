import { execFileSync } from 'node:child_process';
import { describe, expect, it, onTestFinished } from 'vitest';
import { createNetnsPool, onPath, requireNetnsTools } from './netns-fixture.js';

const list = (): string[] =>
  execFileSync('ip', ['netns', 'list'], { encoding: 'utf8' })
    .split('\n')
    .map((l) => l.split(' ')[0]!)
    .filter(Boolean);

describe('netns fixture', () => {
  it('creates namespaces with loopback up and removes exactly those', () => {
    requireNetnsTools();
    const pool = createNetnsPool();
    onTestFinished(() => pool.cleanup()); // on failure too; a second cleanup finds nothing to do
    const a = pool.create('fixture');
    const b = pool.create('fixture');
    expect(a).not.toBe(b);
    expect(list()).toEqual(expect.arrayContaining([a, b]));
    const lo = execFileSync('ip', ['-n', a, '-j', 'link', 'show', 'lo'], { encoding: 'utf8' });
    expect((JSON.parse(lo) as { flags: string[] }[])[0]!.flags).toContain('UP');
    pool.cleanup();
    expect(list()).not.toContain(a);
    expect(list()).not.toContain(b);
  });

  it('names the package of a missing tool instead of skipping', () => {
    expect(onPath('definitely-not-a-tool-xyz')).toBe(false);
    expect(() => requireNetnsTools({ 'definitely-not-a-tool-xyz': 'some-package' })).toThrow(
      'apt-get install -y some-package',
    );
  });
});
