import { describe, expect, it } from 'vitest';
import {
  missingNetledgerInputs,
  netledgerInputs,
  netledgerInputsMessage,
} from './netledger-manifests.js';

describe('netledgerInputs', () => {
  it('takes everything from the workspace root by default', () => {
    expect(netledgerInputs({}, '/w')).toEqual({
      from: '/w',
      images: [
        '/w/dist/images/netledger-node.oci.tar',
        '/w/dist/images/netledger-kube-controllers.oci.tar',
      ],
      overlay: '/w/deploy/overlays/kubernetes',
    });
  });

  it('takes the images from KUBE_TEST_CLUSTER_NETLEDGER_IMAGES and the rest from ..._FROM', () => {
    const env = {
      KUBE_TEST_CLUSTER_NETLEDGER_FROM: '/src',
      KUBE_TEST_CLUSTER_NETLEDGER_IMAGES: '/tmp/images',
    };
    expect(netledgerInputs(env, '/w')).toEqual({
      from: '/src',
      images: [
        '/tmp/images/netledger-node.oci.tar',
        '/tmp/images/netledger-kube-controllers.oci.tar',
      ],
      overlay: '/src/deploy/overlays/kubernetes',
    });
  });
});

describe('missingNetledgerInputs', () => {
  it('names each missing image and the overlay, relative to where they are taken from', () => {
    const present = new Set(['/w/dist/images/netledger-node.oci.tar']);
    const inputs = netledgerInputs({}, '/w');
    expect(missingNetledgerInputs(inputs, (p) => present.has(p))).toEqual([
      'dist/images/netledger-kube-controllers.oci.tar',
      'deploy/overlays/kubernetes/kustomization.yaml',
    ]);
    expect(missingNetledgerInputs(inputs, () => true)).toEqual([]);
  });

  it('names an image outside that directory by its absolute path', () => {
    const inputs = netledgerInputs({ KUBE_TEST_CLUSTER_NETLEDGER_IMAGES: '/tmp/images' }, '/w');
    expect(missingNetledgerInputs(inputs, (p) => !p.endsWith('node.oci.tar'))).toEqual([
      '/tmp/images/netledger-node.oci.tar',
    ]);
  });

  it('says what is missing, what makes it, and the way round it, in one line', () => {
    const message = netledgerInputsMessage(['dist/images/netledger-node.oci.tar']);
    expect(message).toMatch(/^--cni netledger: missing dist\/images\/netledger-node\.oci\.tar\. /);
    expect(message).toContain('`pnpm images`');
    expect(message).toContain('--cni host-local');
    expect(message).not.toContain('\n');
  });
});
