import diagnostics from 'node:diagnostics_channel';
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { createTestCertificates } from '@netledger/testkit';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createEtcdGatewayDatastore } from './create-etcd-gateway-datastore.js';
import type { EtcdKvOptions, KvWatchResponse } from './etcd-kv.js';
import { createGatewayKv } from './gateway-kv.js';
import { classifyEtcdError } from './map-etcd-error.js';

// The gateway transport against a fake gateway (node:http), for what a real etcd will not do on
// demand: expire a token, dribble a stream byte by byte, never answer, or speak TLS.

const HEADER = { cluster_id: '1', member_id: '2', revision: '7', raft_term: '3' };

/** One request as the fake gateway saw it. */
interface Seen {
  readonly path: string;
  readonly body: Record<string, unknown>;
  readonly authorization: string | undefined;
}

type Handler = (req: Seen, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

const servers: (http.Server | https.Server)[] = [];
afterEach(async () => {
  await Promise.all(
    servers.splice(0).map(
      (s) =>
        new Promise<void>((resolve) => {
          s.closeAllConnections();
          s.close(() => resolve());
        }),
    ),
  );
});

async function startGateway(
  handler: Handler,
  tls?: https.ServerOptions,
): Promise<{ endpoint: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const listener = (raw: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    raw.on('data', (c: Buffer) => chunks.push(c));
    raw.on('end', () => {
      const req: Seen = {
        path: raw.url ?? '',
        body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Record<string, unknown>,
        authorization: raw.headers.authorization,
      };
      seen.push(req);
      void handler(req, res, raw);
    });
  };
  const server = tls ? https.createServer(tls, listener) : http.createServer(listener);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (!address || typeof address === 'string') throw new Error('no port');
  return { endpoint: `${tls ? 'https' : 'http'}://127.0.0.1:${address.port}`, seen };
}

const answer = (res: ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};
const etcdError = (res: ServerResponse, status: number, message: string, code: number): void =>
  answer(res, status, { error: message, message, code });

const options = (endpoint: string, more: Partial<EtcdKvOptions> = {}): EtcdKvOptions => ({
  endpoints: [endpoint],
  tls: undefined,
  username: undefined,
  password: undefined,
  dialTimeoutMs: 2000,
  requestTimeoutMs: 2000,
  ...more,
});

describe('gateway transport: authentication', () => {
  /** A gateway with one user whose token it can expire. */
  async function authGateway() {
    let issued = 0;
    let valid: string | undefined;
    const gateway = await startGateway((req, res) => {
      if (req.path === '/v3/auth/authenticate') {
        if (req.body.name !== 'calico' || req.body.password !== 'secret') {
          etcdError(res, 400, 'etcdserver: authentication failed, invalid user ID or password', 3);
          return;
        }
        valid = `token.${++issued}`;
        answer(res, 200, { header: HEADER, token: valid });
        return;
      }
      if (req.authorization !== valid) etcdError(res, 401, 'etcdserver: invalid auth token', 16);
      else answer(res, 200, { header: HEADER });
    });
    return {
      ...gateway,
      issued: () => issued,
      expire: () => (valid = undefined),
    };
  }
  const range = { key: Buffer.from('/a') };

  it('authenticates once, sends the token with every request, and again once it expired', async () => {
    const gateway = await authGateway();
    const kv = createGatewayKv(
      options(gateway.endpoint, { username: 'calico', password: 'secret' }),
    );
    try {
      await Promise.all([
        kv.range(range),
        kv.range(range),
        kv.put({ ...range, value: Buffer.from('v') }),
      ]);
      expect(gateway.issued()).toBe(1);
      const calls = gateway.seen.filter((s) => s.path !== '/v3/auth/authenticate');
      expect(calls.map((s) => s.authorization)).toEqual(['token.1', 'token.1', 'token.1']);
      gateway.expire();
      await expect(kv.range(range)).resolves.toMatchObject({ header: { revision: '7' } });
      expect(gateway.issued()).toBe(2);
      expect(gateway.seen.at(-1)).toMatchObject({ path: '/v3/kv/range', authorization: 'token.2' });
    } finally {
      kv.close();
    }
  });

  it('re-authenticates only once: a token refused again fails the call, refused', async () => {
    let authentications = 0;
    const gateway = await startGateway((req, res) => {
      if (req.path === '/v3/auth/authenticate') {
        answer(res, 200, { header: HEADER, token: `token.${++authentications}` });
      } else {
        etcdError(res, 401, 'etcdserver: invalid auth token', 16);
      }
    });
    const kv = createGatewayKv(options(gateway.endpoint, { username: 'calico', password: 'x' }));
    try {
      const err = await kv.range(range).catch((e: unknown) => e);
      expect(classifyEtcdError(err)).toBe('rejected');
      expect(authentications).toBe(2);
    } finally {
      kv.close();
    }
  });

  it('a wrong password fails PermissionDenied, refused, without retrying until the dial timeout', async () => {
    const gateway = await authGateway();
    const ds = createEtcdGatewayDatastore({
      endpoints: [gateway.endpoint],
      username: 'calico',
      password: 'wrong',
      dialTimeoutMs: 5000,
    });
    try {
      const started = Date.now();
      const err = await ds.get({ kind: 'IPAMConfig' }).catch((e: unknown) => e);
      expect(err).toMatchObject({ code: 'PermissionDenied' });
      expect((err as Error).message).toBe(
        `etcd at ${gateway.endpoint} refused the request: etcdserver: authentication failed, invalid user ID or password`,
      );
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      await ds.close();
    }
  });
});

describe('gateway transport: answers and failures', () => {
  it('retries an etcd answer worth retrying (leader changed), then reads the value', async () => {
    let ranges = 0;
    const gateway = await startGateway((req, res) => {
      if (++ranges <= 2) {
        etcdError(res, 503, 'etcdserver: leader changed', 14);
        return;
      }
      const value = Buffer.from('{"block":{"10.0.0.0/26":1},"deleted":false}').toString('base64');
      answer(res, 200, {
        header: HEADER,
        kvs: [
          {
            key: Buffer.from('/x').toString('base64'),
            create_revision: '4',
            mod_revision: '6',
            version: '2',
            value,
          },
        ],
        count: '1',
      });
    });
    const ds = createEtcdGatewayDatastore({ endpoints: [gateway.endpoint] });
    try {
      await expect(ds.get({ kind: 'IPAMHandle', handleId: 'h' })).resolves.toMatchObject({
        value: { handleId: 'h', block: { '10.0.0.0/26': 1 } },
        revision: '6',
        uid: '4',
      });
      expect(ranges).toBe(3);
      expect(gateway.seen[0]).toMatchObject({
        path: '/v3/kv/range',
        body: { key: Buffer.from('/calico/ipam/v2/handle/h').toString('base64') },
      });
    } finally {
      await ds.close();
    }
  });

  it('gives up on a request after requestTimeoutMs: retryable, possibly applied', async () => {
    const gateway = await startGateway(() => undefined); // never answers
    const kv = createGatewayKv(options(gateway.endpoint, { requestTimeoutMs: 300 }));
    try {
      const started = Date.now();
      const err = await kv.range({ key: Buffer.from('/a') }).catch((e: unknown) => e);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(classifyEtcdError(err)).toBe('retry');
      expect(err).toMatchObject({ requestSent: true });
      expect((err as Error).message).toBe(`${gateway.endpoint}: request timed out after 300 ms`);
    } finally {
      kv.close();
    }
  });

  it('fails calls in flight as closed when closed', async () => {
    const gateway = await startGateway(() => undefined);
    const kv = createGatewayKv(options(gateway.endpoint));
    const pending = kv.range({ key: Buffer.from('/a') }).catch((e: unknown) => e);
    // In flight: the gateway has the request, and will never answer it.
    await vi.waitFor(() => expect(gateway.seen.map((r) => r.path)).toEqual(['/v3/kv/range']));
    kv.close();
    expect(classifyEtcdError(await pending)).toBe('closed');
  });
});

describe('gateway transport: watch', () => {
  const created = { result: { header: HEADER, created: true } };
  const put = (revision: string, value: string) => ({
    kv: {
      key: Buffer.from('/calico/x').toString('base64'),
      create_revision: '5',
      mod_revision: revision,
      version: '1',
      value: Buffer.from(value).toString('base64'),
    },
  });
  const events = [
    { result: { header: { ...HEADER, revision: '8' }, events: [put('8', 'é€😀 "}{"')] } },
    // Unknown fields (with text that looks like JSON structure) are ignored.
    { result: { header: { ...HEADER, revision: '9' }, events: [put('9', '2')], note: 'ü}{"\\' } },
    { result: { header: { ...HEADER, revision: '12' } } }, // a progress notification
  ];

  it('delivers a stream that arrives byte by byte, multi-byte characters cut in two', async () => {
    const gateway = await startGateway(async (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const bytes = Buffer.from([created, ...events].map((m) => `${JSON.stringify(m)}\n`).join(''));
      for (let i = 0; i < bytes.length; i++) {
        res.write(bytes.subarray(i, i + 1));
        await new Promise((resolve) => setImmediate(resolve));
      }
      res.end();
    });
    const kv = createGatewayKv(options(gateway.endpoint));
    const seen: KvWatchResponse[] = [];
    try {
      const outcome = await new Promise<string>((resolve) => {
        kv.watch(
          {
            key: Buffer.from('/calico/'),
            range_end: Buffer.from('/calico0'),
            start_revision: '8',
            prev_kv: true,
          },
          {
            onResponse: (res) => seen.push(res),
            onDisconnected: (e) => resolve(`disconnected: ${classifyEtcdError(e)}`),
            onCanceled: (e) => resolve(`canceled: ${String(e)}`),
          },
        );
      });
      expect(outcome).toBe('disconnected: retry'); // the stream ended: the caller resumes
      expect(seen.map((r) => r.header.revision)).toEqual(['8', '9', '12']);
      expect(seen[0]!.events[0]).toMatchObject({ type: 'Put', kv: { mod_revision: '8' } });
      expect(seen[0]!.events[0]!.kv.value.toString()).toBe('é€😀 "}{"');
      expect(seen[2]!.events).toEqual([]);
      expect(gateway.seen[0]).toMatchObject({
        path: '/v3/watch',
        body: { create_request: { start_revision: '8', prev_kv: true, progress_notify: true } },
      });
    } finally {
      kv.close();
    }
  });

  it('reports a cancel, and nothing after cancel()', async () => {
    const gateway = await startGateway((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify(created)}\n`);
      if (gateway.seen.length === 1) {
        res.write(
          `${JSON.stringify({ result: { header: HEADER, canceled: true, cancel_reason: 'rpc error: code = PermissionDenied desc = etcdserver: permission denied' } })}\n`,
        );
        return;
      }
      // The second watch: one event, then the stream stays open until the client leaves.
      res.write(`${JSON.stringify(events[0])}\n`);
    });
    // The client's connections, as they are made (Node's own channel for new client sockets).
    const sockets: Socket[] = [];
    const onSocket = (message: unknown): void => {
      sockets.push((message as { socket: Socket }).socket);
    };
    diagnostics.subscribe('net.client.socket', onSocket);
    const kv = createGatewayKv(options(gateway.endpoint));
    try {
      const err = await new Promise<unknown>((resolve, reject) => {
        kv.watch(
          { key: Buffer.from('/a'), start_revision: '1' },
          { onResponse: reject, onDisconnected: reject, onCanceled: resolve },
        );
      });
      expect(classifyEtcdError(err)).toBe('rejected');

      const calls: string[] = [];
      const before = sockets.length;
      const watch = kv.watch(
        { key: Buffer.from('/a'), start_revision: '1' },
        {
          onResponse: () => calls.push('response'),
          onDisconnected: () => calls.push('disconnected'),
          onCanceled: () => calls.push('canceled'),
        },
      );
      // The watch is live (its event reported), on a connection of its own.
      await vi.waitFor(() => expect(calls).toEqual(['response']));
      expect(sockets).toHaveLength(before + 1);
      const stream = sockets[before]!;
      const closed = new Promise((resolve) => stream.once('close', resolve));
      watch.cancel();
      // Its connection closed: the stream's end (which a cancel must not report) is handled by
      // the time this resumes (Node runs the close's follow-ups before resuming awaits).
      await closed;
      expect(calls).toEqual(['response']);
    } finally {
      diagnostics.unsubscribe('net.client.socket', onSocket);
      kv.close();
    }
  });
});

describe('gateway transport: TLS', () => {
  it('verifies etcd with the CA and presents the client certificate; refuses another CA', async () => {
    const certs = await createTestCertificates({ clientCommonName: 'netledger' });
    try {
      const pem = (file: { pem: string }): Buffer => Buffer.from(file.pem);
      const peers: string[] = [];
      const gateway = await startGateway(
        (_req, res, raw) => {
          peers.push(String((raw.socket as TLSSocket).getPeerCertificate().subject.CN));
          answer(res, 200, { header: HEADER });
        },
        {
          ca: certs.ca.pem,
          cert: certs.serverCert.pem,
          key: certs.serverKey.pem,
          requestCert: true,
          rejectUnauthorized: true,
        },
      );
      const tls = {
        ca: pem(certs.ca),
        cert: pem(certs.clientCert),
        key: pem(certs.clientKey),
      };
      const kv = createGatewayKv(options(gateway.endpoint, { tls }));
      try {
        await expect(kv.range({ key: Buffer.from('/a') })).resolves.toMatchObject({ count: '0' });
        expect(peers).toEqual(['netledger']);
      } finally {
        kv.close();
      }
      // The system roots do not know this CA: no answer, retried like any unreachable endpoint.
      const untrusting = createGatewayKv(
        options(gateway.endpoint, {
          tls: { ca: undefined, cert: pem(certs.clientCert), key: pem(certs.clientKey) },
        }),
      );
      try {
        const err = await untrusting.range({ key: Buffer.from('/a') }).catch((e: unknown) => e);
        expect(classifyEtcdError(err)).toBe('retry');
        expect((err as Error).message).toMatch(/certificate/);
        expect(peers).toEqual(['netledger']);
      } finally {
        untrusting.close();
      }
    } finally {
      await certs.remove();
    }
  });
});
