import * as fs from 'node:fs';
import type { BigIntStats, Stats } from 'node:fs';
import * as fsp from 'node:fs/promises';

/** An open file, as the store uses one. */
export interface StoreFileHandle {
  statBig(): Promise<BigIntStats>;
  readText(): Promise<string>;
  writeText(text: string): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The file operations the store makes. Two implementations: {@link threadPoolFs} (Node's
 * promise API: each call runs on libuv's thread pool, the event loop stays free) and
 * {@link blockingFs} (the same calls made synchronously, for a one-shot process that has nothing
 * else to do while it waits for the disk: no thread-pool round trip per call).
 */
export interface StoreFs {
  open(path: string, flags: string, mode?: number): Promise<StoreFileHandle>;
  stat(path: string): Promise<Stats>;
  statBig(path: string): Promise<BigIntStats>;
  readText(path: string): Promise<string>;
  /** Writes `text` to `path`, with `flag` as for open(2) (`w`, `wx`). */
  writeText(path: string, text: string, options: { flag: string; mode: number }): Promise<void>;
  link(existing: string, target: string): Promise<void>;
  unlink(path: string): Promise<void>;
  rename(from: string, to: string): Promise<void>;
  readdir(path: string): Promise<string[]>;
  readlink(path: string): Promise<string>;
  /** Creates `path` and its missing parents. */
  mkdirs(path: string): Promise<void>;
}

const poolHandle = (h: fsp.FileHandle): StoreFileHandle => ({
  statBig: () => h.stat({ bigint: true }),
  readText: () => h.readFile('utf8'),
  writeText: (text) => h.writeFile(text, 'utf8'),
  sync: () => h.sync(),
  close: () => h.close(),
});

/** {@link StoreFs} on Node's promise API (the default). */
export const threadPoolFs: StoreFs = {
  open: async (path, flags, mode) => poolHandle(await fsp.open(path, flags, mode)),
  stat: (path) => fsp.stat(path),
  statBig: (path) => fsp.stat(path, { bigint: true }),
  readText: (path) => fsp.readFile(path, 'utf8'),
  writeText: (path, text, options) => fsp.writeFile(path, text, options),
  link: (existing, target) => fsp.link(existing, target),
  unlink: (path) => fsp.unlink(path),
  rename: (from, to) => fsp.rename(from, to),
  readdir: (path) => fsp.readdir(path),
  readlink: (path) => fsp.readlink(path),
  mkdirs: async (path) => {
    await fsp.mkdir(path, { recursive: true });
  },
};

const blockingHandle = (fd: number): StoreFileHandle => ({
  statBig: async () => fs.fstatSync(fd, { bigint: true }),
  readText: async () => fs.readFileSync(fd, 'utf8'),
  writeText: async (text) => fs.writeFileSync(fd, text, 'utf8'),
  sync: async () => fs.fsyncSync(fd),
  close: async () => fs.closeSync(fd),
});

/** {@link StoreFs} with blocking calls; errors still arrive as rejected promises. */
export const blockingFs: StoreFs = {
  open: async (path, flags, mode) => blockingHandle(fs.openSync(path, flags, mode)),
  stat: async (path) => fs.statSync(path),
  statBig: async (path) => fs.statSync(path, { bigint: true }),
  readText: async (path) => fs.readFileSync(path, 'utf8'),
  writeText: async (path, text, options) => fs.writeFileSync(path, text, options),
  link: async (existing, target) => fs.linkSync(existing, target),
  unlink: async (path) => fs.unlinkSync(path),
  rename: async (from, to) => fs.renameSync(from, to),
  readdir: async (path) => fs.readdirSync(path),
  readlink: async (path) => fs.readlinkSync(path),
  mkdirs: async (path) => {
    fs.mkdirSync(path, { recursive: true });
  },
};
