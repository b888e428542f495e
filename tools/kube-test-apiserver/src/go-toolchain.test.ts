import { describe, expect, it } from 'vitest';
import { findGo, parseGoVersion } from './go-toolchain.js';

describe('parseGoVersion', () => {
  it.each([
    ['go version go1.26.8 linux/amd64', { text: 'go1.26.8', major: 1, minor: 26 }],
    ['go version go1.24rc1 linux/arm64', { text: 'go1.24rc1', major: 1, minor: 24 }],
    ['go version go1.19 linux/amd64', { text: 'go1.19', major: 1, minor: 19 }],
    ['something else', { text: 'something else', major: 0, minor: 0 }],
  ])('%s', (output, expected) => {
    expect(parseGoVersion(output)).toEqual(expected);
  });
});

describe('findGo', () => {
  it('says what to install, or to set KUBE_APISERVER, when there is no Go', () => {
    expect(() => findGo({ GO: '/nonexistent/go' })).toThrow(
      expect.objectContaining({
        code: 'NO_GO_TOOLCHAIN',
        message: expect.stringMatching(
          /needs Go 1\.24 or newer.*\/nonexistent\/go: not found.*Install Go.*KUBE_APISERVER=/s,
        ),
      }),
    );
  });

  it('refuses a go whose version is not 1.24 or newer', () => {
    // `echo version` prints no Go version at all, which counts as too old.
    expect(() => findGo({ GO: '/bin/echo' })).toThrow(
      expect.objectContaining({ code: 'NO_GO_TOOLCHAIN' }),
    );
  });
});
