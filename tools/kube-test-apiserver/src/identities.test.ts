import { describe, expect, it } from 'vitest';
import { APPS, createIdentities, renderTokenAuthFile } from './identities.js';

const counter = (): (() => string) => {
  let n = 0;
  return () => `token${n++}`;
};

describe('createIdentities', () => {
  it('makes an admin in system:masters and each app its ServiceAccount', () => {
    const ids = createIdentities(counter());
    expect(ids.admin).toMatchObject({ token: 'token0', groups: ['system:masters'] });
    expect(Object.keys(ids.apps)).toEqual([...APPS]);
    expect(ids.apps['node-agent']).toEqual({
      token: 'token4',
      username: 'system:serviceaccount:kube-system:netledger-node-agent',
      uid: 'netledger-node-agent',
      groups: ['system:serviceaccounts', 'system:serviceaccounts:kube-system'],
      context: 'netledger-node-agent',
    });
  });
});

describe('a node identity', () => {
  it('is the kubelet user the Node authorizer serves, after the apps', () => {
    const ids = createIdentities(counter(), { nodes: ['kube-test-node'] });
    expect(ids.nodes['kube-test-node']).toEqual({
      token: `token${1 + APPS.length}`,
      username: 'system:node:kube-test-node',
      uid: 'node-kube-test-node',
      groups: ['system:nodes'],
      context: 'system:node:kube-test-node',
    });
    expect(renderTokenAuthFile(ids).trimEnd().split('\n').at(-1)).toBe(
      `token${1 + APPS.length},system:node:kube-test-node,node-kube-test-node,"system:nodes"`,
    );
  });

  it('is absent unless asked for', () => {
    expect(createIdentities(counter()).nodes).toEqual({});
  });
});

describe('renderTokenAuthFile', () => {
  it('writes kube-apiserver\'s CSV: token,user,uid,"groups"', () => {
    const lines = renderTokenAuthFile(createIdentities(counter())).trimEnd().split('\n');
    expect(lines).toHaveLength(1 + APPS.length);
    expect(lines[0]).toBe('token0,netledger-test-admin,netledger-test-admin,"system:masters"');
    expect(lines[1]).toBe(
      'token1,system:serviceaccount:kube-system:netledger-cni-plugin,netledger-cni-plugin,' +
        '"system:serviceaccounts,system:serviceaccounts:kube-system"',
    );
  });
});
