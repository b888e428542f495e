import { X509Certificate, createPrivateKey } from 'node:crypto';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createTestCertificates } from './create-test-certificates.js';

describe('createTestCertificates', () => {
  it('makes a CA, a server certificate for 127.0.0.1 and localhost, and a client certificate signed by it', async () => {
    const certs = await createTestCertificates({ clientCommonName: 'netledger' });
    try {
      const ca = new X509Certificate(certs.ca.pem);
      const server = new X509Certificate(certs.serverCert.pem);
      const client = new X509Certificate(certs.clientCert.pem);
      expect(ca.ca).toBe(true);
      for (const cert of [server, client]) {
        expect(cert.ca).toBe(false);
        expect(cert.checkIssued(ca)).toBe(true);
        expect(cert.verify(ca.publicKey)).toBe(true);
      }
      expect(server.subjectAltName).toBe('IP Address:127.0.0.1, DNS:localhost');
      expect(server.checkIP('127.0.0.1')).toBe('127.0.0.1');
      expect(server.subject).not.toMatch(/CN=/);
      expect(server.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
      expect(client.subject).toBe('CN=netledger');
      expect(client.keyUsage).toEqual(['1.3.6.1.5.5.7.3.2']);
      expect(server.checkPrivateKey(createPrivateKey(certs.serverKey.pem))).toBe(true);
      expect(client.checkPrivateKey(createPrivateKey(certs.clientKey.pem))).toBe(true);
      expect(existsSync(certs.clientKey.path)).toBe(true);
    } finally {
      await certs.remove();
    }
    expect(existsSync(certs.dir)).toBe(false);
  });

  it('gives the client certificate no CommonName unless asked', async () => {
    const certs = await createTestCertificates();
    try {
      expect(new X509Certificate(certs.clientCert.pem).subject).toBe('O=netledger-test-client');
    } finally {
      await certs.remove();
    }
  });

  it('throws openssl’s failure', async () => {
    await expect(createTestCertificates({ openssl: '/nonexistent/openssl' })).rejects.toThrow(
      /ENOENT/,
    );
  });
});
