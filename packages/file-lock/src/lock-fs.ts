import * as fs from 'node:fs';
import type { Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';

/**
 * The file operations a lock makes. Two implementations: {@link threadPoolLockFs} (Node's promise
 * API: each call runs on libuv's thread pool and the event loop stays free) and
 * {@link blockingLockFs} (the same calls made synchronously, for a one-shot process with nothing
 * else to do meanwhile: no thread-pool round trip per call).
 */
export interface LockFs {
  stat(path: string): Promise<Stats>;
  readText(path: string): Promise<string>;
  /** Writes `text` to `path`, with `flag` as for open(2) (`w`, `wx`). */
  writeText(path: string, text: string, options: { flag: string; mode: number }): Promise<void>;
  link(existing: string, target: string): Promise<void>;
  unlink(path: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readlink(path: string): Promise<string>;
}

/** {@link LockFs} on Node's promise API. */
export const threadPoolLockFs: LockFs = {
  stat: (path) => fsp.stat(path),
  readText: (path) => fsp.readFile(path, 'utf8'),
  writeText: (path, text, options) => fsp.writeFile(path, text, options),
  link: (existing, target) => fsp.link(existing, target),
  unlink: (path) => fsp.unlink(path),
  readdir: (path) => fsp.readdir(path),
  readlink: (path) => fsp.readlink(path),
};

/** {@link LockFs} with blocking calls; errors still arrive as rejected promises. */
export const blockingLockFs: LockFs = {
  stat: async (path) => fs.statSync(path),
  readText: async (path) => fs.readFileSync(path, 'utf8'),
  writeText: async (path, text, options) => fs.writeFileSync(path, text, options),
  link: async (existing, target) => fs.linkSync(existing, target),
  unlink: async (path) => fs.unlinkSync(path),
  readdir: async (path) => fs.readdirSync(path),
  readlink: async (path) => fs.readlinkSync(path),
};

/** The errno code of a Node fs error, if it is one. */
export function errnoOf(e: unknown): string | undefined {
  const code = (e as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}
