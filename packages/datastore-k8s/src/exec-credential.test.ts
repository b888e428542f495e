import { describe, expect, it } from 'vitest';
import { parseExecCredential, runExecCredential } from './exec-credential.js';

const V1 = 'client.authentication.k8s.io/v1';
const cred = (status: object, apiVersion = V1) =>
  JSON.stringify({ apiVersion, kind: 'ExecCredential', status });

describe('parseExecCredential', () => {
  it('takes a token or a client certificate and key, with the expiry', () => {
    expect(
      parseExecCredential(cred({ token: 't', expirationTimestamp: '2030-01-01T00:00:00Z' }), V1),
    ).toEqual({
      token: 't',
      expirationTimestamp: '2030-01-01T00:00:00Z',
    });
    expect(
      parseExecCredential(cred({ clientCertificateData: 'C', clientKeyData: 'K' }), V1),
    ).toEqual({
      clientCertificateData: 'C',
      clientKeyData: 'K',
    });
  });

  it.each([
    ['not JSON', 'nope', /not JSON/],
    [
      'another apiVersion',
      cred({ token: 't' }, 'client.authentication.k8s.io/v1beta1'),
      /did not print an ExecCredential of client.authentication.k8s.io\/v1/,
    ],
    ['no credential', cred({}), /neither a token nor a client certificate/],
    ['a certificate without its key', cred({ clientCertificateData: 'C' }), /without a key/],
  ])('refuses %s', (_what, text, message) => {
    expect(() => parseExecCredential(text, V1)).toThrow(message);
  });
});

describe('runExecCredential', () => {
  it('refuses an apiVersion it does not speak, before running anything', async () => {
    await expect(
      runExecCredential(
        {
          command: '/nonexistent',
          args: [],
          env: {},
          apiVersion: 'client.authentication.k8s.io/v1alpha1',
          provideClusterInfo: false,
        },
        { env: {}, server: 'https://x' },
      ),
    ).rejects.toThrow(/unsupported apiVersion "client.authentication.k8s.io\/v1alpha1"/);
  });
});
