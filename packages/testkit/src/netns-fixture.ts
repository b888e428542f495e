import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** True when an executable `name` is on PATH. */
export function onPath(name: string, path = process.env['PATH'] ?? ''): boolean {
  return path.split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

/**
 * Fails (never skips) unless the tests run as root with every tool on PATH, naming the Debian
 * package that brings a missing one: `requireNetnsTools({ ip: 'iproute2', nft: 'nftables' })`.
 */
export function requireNetnsTools(
  tools: Readonly<Record<string, string>> = { ip: 'iproute2' },
): void {
  if (process.getuid?.() !== 0) throw new Error('network namespace tests must run as root');
  for (const [tool, pkg] of Object.entries(tools)) {
    if (!onPath(tool)) throw new Error(`missing ${tool}: apt-get install -y ${pkg}`);
  }
}

/** Throwaway network namespaces, all removed by `cleanup()`. */
export interface NetnsPool {
  /** Creates `nl-<tag>-<random>` with its loopback up, and returns its name. */
  create(tag: string): string;
  /** Deletes every namespace this pool created (newest first); ones already gone are fine. */
  cleanup(): void;
}

/**
 * Creates a {@link NetnsPool}. Tests touch nothing outside the namespaces it creates; names carry
 * a random suffix so parallel test files never collide.
 */
export function createNetnsPool(): NetnsPool {
  const created: string[] = [];
  return {
    create(tag) {
      const name = `nl-${tag}-${randomBytes(3).toString('hex')}`;
      execFileSync('ip', ['netns', 'add', name], { stdio: 'pipe' });
      created.push(name);
      execFileSync('ip', ['-n', name, 'link', 'set', 'lo', 'up'], { stdio: 'pipe' });
      return name;
    },
    cleanup() {
      for (const ns of created.splice(0).reverse()) {
        try {
          execFileSync('ip', ['netns', 'del', ns], { stdio: 'pipe' });
        } catch {
          // already gone
        }
      }
    },
  };
}
