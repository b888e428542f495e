import { describe, expect, it } from 'vitest';
import { EtcdKvError } from './etcd-kv-error.js';
import {
  decodeAuthenticateResponse,
  decodePutResponse,
  decodeRangeResponse,
  decodeTxnResponse,
  decodeWatchMessage,
  encodeRangeRequest,
  encodeTxnRequest,
  encodeWatchCreateRequest,
} from './gateway-json.js';
import { classifyEtcdError } from './map-etcd-error.js';

// Answers as etcd 3.4.23's gateway sends them (captured with curl), proto3 defaults left out.
const HEADER = {
  cluster_id: '6328709751833505057',
  member_id: '11719934994822390420',
  revision: '5',
  raft_term: '2',
};
const b64 = (text: string): string => Buffer.from(text).toString('base64');
/** A request as it goes on the wire. */
const wire = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

describe('decoding gateway answers', () => {
  it('fills in what proto3 JSON leaves out of a range: no kvs, no more, no count', () => {
    expect(decodeRangeResponse({ header: HEADER })).toEqual({
      header: HEADER,
      kvs: [],
      more: false,
      count: '0',
    });
    // Even the header can lose fields (a canceled watch has no revision).
    expect(decodeRangeResponse({}).header).toEqual({
      cluster_id: '0',
      member_id: '0',
      revision: '0',
      raft_term: '0',
    });
  });

  it('decodes keys and values from base64, bytes intact, and fills a key without value or lease', () => {
    const binary = Buffer.from([0x2f, 0x00, 0xff, 0xc3, 0x28]); // not UTF-8
    const res = decodeRangeResponse({
      header: HEADER,
      kvs: [
        { key: 'L2E=', create_revision: '2', mod_revision: '3', version: '2', value: 'aGVsbG8y' },
        { key: binary.toString('base64'), create_revision: '5', mod_revision: '5', version: '1' },
      ],
      more: true,
      count: '2',
    });
    expect(res.more).toBe(true);
    expect(res.count).toBe('2');
    expect(res.kvs[0]).toEqual({
      key: Buffer.from('/a'),
      create_revision: '2',
      mod_revision: '3',
      version: '2',
      value: Buffer.from('hello2'),
      lease: '0',
    });
    expect(res.kvs[1]!.key.equals(binary)).toBe(true);
    expect(res.kvs[1]!.value).toEqual(Buffer.alloc(0));
  });

  it('keeps int64 digits beyond 2^53 exactly', () => {
    const res = decodeRangeResponse({ header: { ...HEADER, revision: '9007199254740993' } });
    expect(res.header.revision).toBe('9007199254740993');
  });

  it('reads a failed transaction: `succeeded` absent, the failure op a range of one key', () => {
    const res = decodeTxnResponse({
      header: HEADER,
      responses: [
        {
          response_range: {
            header: { revision: '3' },
            kvs: [
              { key: 'L2E=', create_revision: '2', mod_revision: '3', version: '2', value: 'eA==' },
            ],
            count: '1',
          },
        },
      ],
    });
    expect(res.succeeded).toBe(false);
    expect(res.responses).toHaveLength(1);
    expect(res.responses[0]!.response_put).toBeUndefined();
    expect(res.responses[0]!.response_range).toMatchObject({
      more: false,
      count: '1',
      kvs: [{ mod_revision: '3', value: Buffer.from('x') }],
    });
  });

  it('reads a successful transaction: a put without prev_kv, a delete, an empty range', () => {
    const res = decodeTxnResponse({
      header: HEADER,
      succeeded: true,
      responses: [
        { response_put: { header: { revision: '4' } } },
        { response_delete_range: { header: { revision: '8' }, deleted: '1' } },
        { response_range: { header: { revision: '8' } } },
      ],
    });
    expect(res.succeeded).toBe(true);
    expect(res.responses[0]!.response_put).toEqual({
      header: { cluster_id: '0', member_id: '0', revision: '4', raft_term: '0' },
      prev_kv: undefined,
    });
    expect(res.responses[1]!.response_delete_range).toMatchObject({ deleted: '1' });
    expect(res.responses[2]!.response_range).toMatchObject({ kvs: [], more: false });
    // A transaction of reads only, no compare, succeeds with no ops at all.
    expect(decodeTxnResponse({ header: HEADER, succeeded: true })).toMatchObject({
      responses: [],
    });
  });

  it('reads the previous value of a put when there was one', () => {
    expect(decodePutResponse({ header: HEADER }).prev_kv).toBeUndefined();
    const res = decodePutResponse({
      header: HEADER,
      prev_kv: {
        key: 'L2E=',
        create_revision: '2',
        mod_revision: '2',
        version: '1',
        value: 'aGVsbG8=',
      },
    });
    expect(res.prev_kv).toMatchObject({ create_revision: '2', value: Buffer.from('hello') });
  });

  it('reads the token of an authentication', () => {
    expect(decodeAuthenticateResponse({ header: HEADER, token: 'LxUGeshWWlLFcLce.18' })).toBe(
      'LxUGeshWWlLFcLce.18',
    );
    expect(() => decodeAuthenticateResponse({ header: HEADER })).toThrow(EtcdKvError);
  });

  it.each([
    [
      'a value that is not base64',
      { header: HEADER, kvs: [{ key: 'L2E=', value: 'not base64!' }] },
    ],
    ['a revision that is not an int64', { header: { revision: '12abc' } }],
    ['a revision beyond 2^53 as a JSON number', { header: { revision: 2 ** 60 } }],
    ['kvs that is not an array', { header: HEADER, kvs: {} }],
    ['more that is not a boolean', { header: HEADER, more: 'true' }],
    ['an answer that is not an object', 'etcd'],
  ])('refuses %s, never guessing', (_what, answer) => {
    let error: unknown;
    try {
      decodeRangeResponse(answer);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(EtcdKvError);
    expect(classifyEtcdError(error)).toBe('other');
    expect((error as Error).message).toMatch(/^unexpected answer from the etcd gateway: /);
  });

  it('refuses a transaction op of no known kind', () => {
    expect(() => decodeTxnResponse({ header: HEADER, responses: [{}] })).toThrow(/no known kind/);
  });
});

describe('decoding gateway watch messages', () => {
  it('skips the created message', () => {
    expect(decodeWatchMessage({ result: { header: HEADER, created: true } })).toEqual({
      kind: 'created',
    });
  });

  it('decodes events: a put has no type, a delete has only key and revision plus prev_kv', () => {
    const message = decodeWatchMessage({
      result: {
        header: { ...HEADER, revision: '6' },
        events: [
          {
            kv: {
              key: 'L2Q=',
              create_revision: '7',
              mod_revision: '7',
              version: '1',
              value: 'dg==',
            },
          },
          {
            type: 'DELETE',
            kv: { key: 'L2I=', mod_revision: '6' },
            prev_kv: {
              key: 'L2I=',
              create_revision: '4',
              mod_revision: '4',
              version: '1',
              value: 'eA==',
            },
          },
        ],
      },
    });
    expect(message.kind).toBe('response');
    if (message.kind !== 'response') return;
    expect(message.response.header.revision).toBe('6');
    const [put, del] = message.response.events;
    expect(put).toMatchObject({ type: 'Put', kv: { version: '1', value: Buffer.from('v') } });
    expect(put!.prev_kv).toBeUndefined();
    expect(del).toMatchObject({
      type: 'Delete',
      kv: { key: Buffer.from('/b'), mod_revision: '6', version: '0', create_revision: '0' },
      prev_kv: { create_revision: '4', value: Buffer.from('x') },
    });
  });

  it('decodes a progress notification as a response without events', () => {
    expect(decodeWatchMessage({ result: { header: { ...HEADER, revision: '9' } } })).toEqual({
      kind: 'response',
      response: { header: { ...HEADER, revision: '9' }, events: [] },
    });
  });

  it('decodes a cancel: compacted (etcd 3.4 gives no reason) and refused', () => {
    const compacted = decodeWatchMessage({
      result: {
        header: { cluster_id: '1', raft_term: '2' },
        canceled: true,
        compact_revision: '3',
      },
    });
    expect(compacted).toMatchObject({ kind: 'canceled' });
    if (compacted.kind === 'canceled') expect(compacted.error.message).toContain('revision 3');
    const refused = decodeWatchMessage({
      result: {
        header: HEADER,
        watch_id: '-1',
        created: true,
        canceled: true,
        cancel_reason: 'rpc error: code = PermissionDenied desc = etcdserver: permission denied',
      },
    });
    expect(refused.kind).toBe('canceled');
    if (refused.kind === 'canceled') expect(classifyEtcdError(refused.error)).toBe('rejected');
  });

  it('decodes a stream error of the gateway', () => {
    const message = decodeWatchMessage({
      error: {
        grpc_code: 14,
        http_code: 503,
        message: 'transport is closing',
        http_status: 'Service Unavailable',
      },
    });
    expect(message.kind).toBe('error');
    if (message.kind === 'error') {
      expect(message.error).toMatchObject({ message: 'transport is closing', grpcCode: 14 });
      expect(classifyEtcdError(message.error)).toBe('retry');
    }
  });

  it('refuses an event of an unknown type', () => {
    expect(() =>
      decodeWatchMessage({ result: { header: HEADER, events: [{ type: 'EXPIRE', kv: {} }] } }),
    ).toThrow(EtcdKvError);
  });
});

describe('encoding gateway requests', () => {
  it('encodes a range: bytes as base64, int64 as strings, unset fields left out', () => {
    expect(
      wire(
        encodeRangeRequest({
          key: Buffer.from('/calico/'),
          range_end: Buffer.from('/calico0'),
          limit: 500,
          revision: '42',
        }),
      ),
    ).toEqual({ key: b64('/calico/'), range_end: b64('/calico0'), limit: '500', revision: '42' });
    expect(wire(encodeRangeRequest({ key: Buffer.from('/a'), count_only: true }))).toEqual({
      key: b64('/a'),
      count_only: true,
    });
  });

  it("encodes a compare-and-swap with etcd's enum names, version 0 included", () => {
    const key = Buffer.from('/calico/ipam/v2/handle/h');
    expect(
      wire(
        encodeTxnRequest({
          compare: [
            { key, target: 'Version', result: 'Equal', version: 0 },
            { key, target: 'Mod', result: 'Equal', mod_revision: '17' },
            { key, target: 'Create', result: 'NotEqual', create_revision: '3' },
            { key, target: 'Value', result: 'Greater', value: Buffer.from('v') },
          ],
          success: [
            { request_put: { key, value: Buffer.from('{"x":1}'), prev_kv: true } },
            { request_delete_range: { key } },
          ],
          failure: [{ request_range: { key } }],
        }),
      ),
    ).toEqual({
      compare: [
        { key: b64('/calico/ipam/v2/handle/h'), target: 'VERSION', result: 'EQUAL', version: '0' },
        {
          key: b64('/calico/ipam/v2/handle/h'),
          target: 'MOD',
          result: 'EQUAL',
          mod_revision: '17',
        },
        {
          key: b64('/calico/ipam/v2/handle/h'),
          target: 'CREATE',
          result: 'NOT_EQUAL',
          create_revision: '3',
        },
        {
          key: b64('/calico/ipam/v2/handle/h'),
          target: 'VALUE',
          result: 'GREATER',
          value: b64('v'),
        },
      ],
      success: [
        {
          request_put: {
            key: b64('/calico/ipam/v2/handle/h'),
            value: b64('{"x":1}'),
            prev_kv: true,
          },
        },
        { request_delete_range: { key: b64('/calico/ipam/v2/handle/h') } },
      ],
      failure: [{ request_range: { key: b64('/calico/ipam/v2/handle/h') } }],
    });
  });

  it('asks for progress notifications when creating a watch', () => {
    expect(
      wire(
        encodeWatchCreateRequest({
          key: Buffer.from('/a'),
          range_end: Buffer.from('/b'),
          start_revision: '8',
          prev_kv: true,
        }),
      ),
    ).toEqual({
      create_request: {
        key: b64('/a'),
        range_end: b64('/b'),
        start_revision: '8',
        prev_kv: true,
        progress_notify: true,
      },
    });
  });
});
