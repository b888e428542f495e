import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { chooseKubectl } from './start-kube-apiserver.js';

describe('chooseKubectl', () => {
  const withKubectl = (): string => {
    const dir = mkdtempSync(join(tmpdir(), 'kubectl-path-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'kubectl'), '#!/bin/sh\n', { mode: 0o755 });
    return dir;
  };

  it('takes $KUBECTL first', () => {
    expect(chooseKubectl({ KUBECTL: '/x/kubectl', PATH: withKubectl() }, '/pinned')).toBe(
      '/x/kubectl',
    );
  });
  it("takes the machine's kubectl over the pinned one", () => {
    expect(chooseKubectl({ PATH: withKubectl() }, '/pinned/kubectl')).toBe('kubectl');
  });
  it('takes the kubectl built with kube-apiserver when the machine has none', () => {
    expect(chooseKubectl({ PATH: '/nonexistent' }, '/pinned/kubectl')).toBe('/pinned/kubectl');
    expect(chooseKubectl({ PATH: '/nonexistent' }, undefined)).toBe('kubectl');
  });
});
