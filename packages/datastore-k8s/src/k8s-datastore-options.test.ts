import { describe, expect, it } from 'vitest';
import { createK8sDatastore } from './create-k8s-datastore.js';
import { K8S_DEFAULTS, resolveK8sOptions } from './k8s-datastore-options.js';

describe('createK8sDatastore options', () => {
  it('applies the defaults', () => {
    expect(resolveK8sOptions({ kubeconfig: '/k' })).toEqual({ kubeconfig: '/k', ...K8S_DEFAULTS });
    expect(resolveK8sOptions({ kubeconfig: '/k', maxSockets: 1 })).toMatchObject({ maxSockets: 1 });
    expect(resolveK8sOptions({ kubeconfig: '/k', maxRetries: 0 })).toMatchObject({ maxRetries: 0 });
    // Any case, as Calico's CALICO_API_GROUP (strings.EqualFold).
    expect(
      resolveK8sOptions({ kubeconfig: '/k', calicoApiGroup: 'ProjectCalico.org/v3' }),
    ).toMatchObject({ calicoApiGroup: 'projectcalico.org/v3' });
  });

  it.each([
    [{ kubeconfig: '/k', inCluster: true }, /either kubeconfig or inCluster/],
    [{ inCluster: false }, /inCluster is false but no kubeconfig/],
    [{ kubeconfig: '' }, /empty path/],
    [{ kubeconfig: '/k', qps: 0 }, /qps must be a positive number, got 0/],
    [{ kubeconfig: '/k', burst: 1.5 }, /burst must be a positive integer/],
    [{ kubeconfig: '/k', requestTimeoutMs: -1 }, /requestTimeoutMs must be a positive integer/],
    [{ kubeconfig: '/k', maxSockets: 0 }, /maxSockets must be a positive integer/],
    [{ kubeconfig: '/k', maxRetries: -1 }, /maxRetries must be a whole number >= 0, got -1/],
    [{ kubeconfig: '/k', maxRetryWaitMs: 0.5 }, /maxRetryWaitMs must be a whole number >= 0/],
    [
      { kubeconfig: '/k', calicoApiGroup: 'projectcalico.org' },
      /calicoApiGroup must be crd.projectcalico.org\/v1 or projectcalico.org\/v3, got "projectcalico.org"/,
    ],
  ])('refuses %j', (options, message) => {
    expect(() => resolveK8sOptions(options)).toThrow(message);
  });

  it('without a kubeconfig outside a pod, says which variables are missing', () => {
    const saved = process.env.KUBERNETES_SERVICE_HOST;
    delete process.env.KUBERNETES_SERVICE_HOST;
    try {
      expect(() => createK8sDatastore()).toThrow(
        /in-cluster service account: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set/,
      );
    } finally {
      if (saved !== undefined) process.env.KUBERNETES_SERVICE_HOST = saved;
    }
  });
});
