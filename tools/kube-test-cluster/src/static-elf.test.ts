import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { isStaticElf } from './static-elf.js';

describe('isStaticElf', () => {
  it("tells Debian's static busybox from a dynamically linked program", () => {
    expect(isStaticElf(readFileSync('/bin/busybox'))).toBe(true);
    expect(isStaticElf(readFileSync('/usr/bin/env'))).toBe(false);
  });

  it('is false for what is not an ELF, or is cut short', () => {
    expect(isStaticElf(Buffer.from('#!/bin/sh\necho hi\n'))).toBe(false);
    expect(isStaticElf(readFileSync('/bin/busybox').subarray(0, 63))).toBe(false);
    // The program headers claimed past the end of what was read.
    expect(isStaticElf(readFileSync('/bin/busybox').subarray(0, 80))).toBe(false);
  });
});
