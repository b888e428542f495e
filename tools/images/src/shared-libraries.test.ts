import { describe, expect, it } from 'vitest';
import { parseLdd, sharedLibrariesOf } from './shared-libraries.js';

// `ldd /usr/bin/node` on Debian 12 (amd64).
const NODE = `	linux-vdso.so.1 (0x00007fe35e582000)
	libdl.so.2 => /lib/x86_64-linux-gnu/libdl.so.2 (0x00007fe35e56c000)
	libstdc++.so.6 => /lib/x86_64-linux-gnu/libstdc++.so.6 (0x00007fe35e200000)
	libm.so.6 => /lib/x86_64-linux-gnu/libm.so.6 (0x00007fe35e48c000)
	libgcc_s.so.1 => /lib/x86_64-linux-gnu/libgcc_s.so.1 (0x00007fe35e46c000)
	libpthread.so.0 => /lib/x86_64-linux-gnu/libpthread.so.0 (0x00007fe35e467000)
	libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x00007fe35e01e000)
	/lib64/ld-linux-x86-64.so.2 (0x00007fe35e584000)
`;

describe('parseLdd', () => {
  it('lists each library and the loader, sorted, without the vDSO', () => {
    expect(parseLdd(NODE, 'node')).toEqual([
      '/lib/x86_64-linux-gnu/libc.so.6',
      '/lib/x86_64-linux-gnu/libdl.so.2',
      '/lib/x86_64-linux-gnu/libgcc_s.so.1',
      '/lib/x86_64-linux-gnu/libm.so.6',
      '/lib/x86_64-linux-gnu/libpthread.so.0',
      '/lib/x86_64-linux-gnu/libstdc++.so.6',
      '/lib64/ld-linux-x86-64.so.2',
    ]);
  });

  it.each([
    ['\tnot a dynamic executable\n', []],
    ['\tstatically linked\n', []],
    [
      '\tlibc.so.6 => /lib/libc.so.6 (0x1)\n\tlibc.so.6 => /lib/libc.so.6 (0x2)\n',
      ['/lib/libc.so.6'],
    ],
  ])('%j', (output, paths) => {
    expect(parseLdd(output, 'x')).toEqual(paths);
  });

  it.each([
    ['\tlibfoo.so.1 => not found\n', 'x needs libfoo.so.1, which ldd cannot find'],
    ['\tsomething else\n', 'ldd x: cannot read "something else"'],
  ])('refuses %j', (output, message) => {
    expect(() => parseLdd(output, 'x')).toThrow(message);
  });
});

describe('sharedLibrariesOf', () => {
  it("finds this Node.js's libc and loader, and nothing for a static executable", () => {
    const libraries = sharedLibrariesOf(process.execPath);
    expect(libraries.some((p) => /\/libc\.so\.6$/.test(p))).toBe(true);
    expect(libraries.some((p) => /\/ld-linux[^/]*\.so\.\d$/.test(p))).toBe(true);
  });
});
