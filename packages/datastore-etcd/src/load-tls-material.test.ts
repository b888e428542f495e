import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTempDir } from '@netledger/testkit';
import { describe, expect, it } from 'vitest';
import { loadTlsMaterial } from './load-tls-material.js';

const PEM = '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n';

describe('loadTlsMaterial', () => {
  it('takes PEM text as is and reads file paths', async () => {
    const dir = await createTempDir();
    try {
      writeFileSync(join(dir.path, 'ca.pem'), PEM);
      const m = loadTlsMaterial({ ca: join(dir.path, 'ca.pem'), cert: PEM, key: PEM });
      expect(m.ca?.toString()).toBe(PEM);
      expect(m.cert?.toString()).toBe(PEM);
      expect(m.key?.toString()).toBe(PEM);
    } finally {
      await dir.remove();
    }
  });

  it('fails InvalidArgument naming a missing file, and a cert without its key', () => {
    expect(() => loadTlsMaterial({ ca: '/nonexistent/ca.pem' })).toThrow(
      /etcd TLS CA \/nonexistent\/ca\.pem/,
    );
    expect(() => loadTlsMaterial({ cert: PEM })).toThrow('cert and key must be given together');
  });
});
