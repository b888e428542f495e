import { KubeConfig } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { createIdentities } from './identities.js';
import { renderKubeconfig, renderTokensFile } from './kubeconfig.js';

const caPem = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';
const identities = createIdentities(
  (() => {
    let n = 0;
    return () => `t${n++}`;
  })(),
);

describe('renderKubeconfig', () => {
  it('is read by @kubernetes/client-node: admin current, a context per app, CA inline', () => {
    const kc = new KubeConfig();
    kc.loadFromString(renderKubeconfig({ server: 'https://127.0.0.1:6443', caPem, identities }));
    expect(kc.getCurrentContext()).toBe('netledger-test-admin');
    expect(kc.getCurrentUser()).toMatchObject({ token: 't0' });
    expect(kc.getCurrentCluster()).toMatchObject({
      server: 'https://127.0.0.1:6443',
      caData: Buffer.from(caPem).toString('base64'),
    });
    expect(kc.getContexts().map((c) => c.name)).toEqual([
      'netledger-test-admin',
      'netledger-cni-plugin',
      'netledger-ctl',
      'netledger-kube-controllers',
      'netledger-node-agent',
    ]);
    kc.setCurrentContext('netledger-ctl');
    expect(kc.getCurrentUser()).toMatchObject({ token: 't2' });
  });
});

describe('renderTokensFile', () => {
  it('names the server, the kubeconfig and every identity', () => {
    const file = JSON.parse(
      renderTokensFile({ server: 'https://127.0.0.1:1', kubeconfig: '/k', identities }),
    ) as unknown;
    expect(file).toMatchObject({
      server: 'https://127.0.0.1:1',
      kubeconfig: '/k',
      admin: { token: 't0', context: 'netledger-test-admin' },
      apps: { 'kube-controllers': { token: 't3', context: 'netledger-kube-controllers' } },
    });
  });
});
