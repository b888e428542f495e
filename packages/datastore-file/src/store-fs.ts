import * as fs from 'node:fs';
import type { BigIntStats } from 'node:fs';
import * as fsp from 'node:fs/promises';
import { blockingLockFs, threadPoolLockFs } from '@netledger/file-lock';
import type { LockFs } from '@netledger/file-lock';

/** The mode of every file the store writes: the owner only (IPAM state is not for other users). */
export const PRIVATE_FILE_MODE = 0o600;
/** The mode of a directory the store creates for itself. */
const PRIVATE_DIR_MODE = 0o700;

/** An open file, as the store uses one. */
export interface StoreFileHandle {
  statBig(): Promise<BigIntStats>;
  readText(): Promise<string>;
  /** Writes the whole file. */
  writeContents(contents: Uint8Array): Promise<void>;
  sync(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The file operations the store makes: its lock's (`LockFs`) and its own. Two implementations:
 * {@link threadPoolFs} (Node's promise API: each call runs on libuv's thread pool, the event loop
 * stays free) and {@link blockingFs} (the same calls made synchronously, for a one-shot process
 * that has nothing else to do while it waits for the disk: no thread-pool round trip per call).
 */
export interface StoreFs extends LockFs {
  open(path: string, flags: string, mode?: number): Promise<StoreFileHandle>;
  statBig(path: string): Promise<BigIntStats>;
  rename(from: string, to: string): Promise<void>;
  /** Creates `path` and its missing parents, each one it creates `0700` (owner only). */
  mkdirs(path: string): Promise<void>;
}

const poolHandle = (h: fsp.FileHandle): StoreFileHandle => ({
  statBig: () => h.stat({ bigint: true }),
  readText: () => h.readFile('utf8'),
  writeContents: (contents) => h.writeFile(contents),
  sync: () => h.sync(),
  close: () => h.close(),
});

/** {@link StoreFs} on Node's promise API (the default). */
export const threadPoolFs: StoreFs = {
  ...threadPoolLockFs,
  open: async (path, flags, mode) => poolHandle(await fsp.open(path, flags, mode)),
  statBig: (path) => fsp.stat(path, { bigint: true }),
  rename: (from, to) => fsp.rename(from, to),
  mkdirs: async (path) => {
    await fsp.mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  },
};

const blockingHandle = (fd: number): StoreFileHandle => ({
  statBig: async () => fs.fstatSync(fd, { bigint: true }),
  readText: async () => fs.readFileSync(fd, 'utf8'),
  writeContents: async (contents) => fs.writeFileSync(fd, contents),
  sync: async () => fs.fsyncSync(fd),
  close: async () => fs.closeSync(fd),
});

/** {@link StoreFs} with blocking calls; errors still arrive as rejected promises. */
export const blockingFs: StoreFs = {
  ...blockingLockFs,
  open: async (path, flags, mode) => blockingHandle(fs.openSync(path, flags, mode)),
  statBig: async (path) => fs.statSync(path, { bigint: true }),
  rename: async (from, to) => fs.renameSync(from, to),
  mkdirs: async (path) => {
    fs.mkdirSync(path, { recursive: true, mode: PRIVATE_DIR_MODE });
  },
};
