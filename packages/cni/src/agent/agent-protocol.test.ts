import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgentProtocolError,
  agentHttpRequest,
  answerResponse,
  decodeAgentRequest,
  encodeAgentRequest,
  parseAgentResponse,
} from './agent-protocol.js';

const envKey = fc.string({ minLength: 1, maxLength: 12 }).filter((k) => !/[=\0]/.test(k));
const envValue = fc.string({ maxLength: 40 }).filter((v) => !v.includes('\0'));

describe('request body', () => {
  it('round-trips any environment and standard input (NUL bytes in stdin included)', () => {
    fc.assert(
      fc.property(fc.dictionary(envKey, envValue), fc.string(), (env, stdin) => {
        expect(decodeAgentRequest(encodeAgentRequest({ env, stdin }))).toEqual({ env, stdin });
      }),
    );
  });

  it('keeps a variable named __proto__ (or constructor) as an entry', () => {
    const env = JSON.parse('{"__proto__":"x","constructor":"y","A":"1"}') as Record<string, string>;
    const decoded = decodeAgentRequest(encodeAgentRequest({ env, stdin: '' })).env;
    expect(Object.entries(decoded)).toEqual([
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['A', '1'],
    ]);
  });

  it.each<[string, Buffer, string]>([
    ['no end of the environment', Buffer.from('A=1\0B=2'), 'not terminated'],
    ['an entry without =', Buffer.from('A\0\0{}'), 'bad environment entry "A"'],
    ['an empty key', Buffer.from('=1\0\0{}'), 'bad environment entry "=1"'],
    ['a key twice', Buffer.from('A=1\0A=2\0\0{}'), 'A is given twice'],
    ['an empty body', Buffer.alloc(0), 'not terminated'],
  ])('refuses %s', (_, body, msg) => {
    expect(() => decodeAgentRequest(body)).toThrow(AgentProtocolError);
    expect(() => decodeAgentRequest(body)).toThrow(msg);
  });

  it('refuses to encode what the environment cannot hold', () => {
    expect(() => encodeAgentRequest({ env: { 'A=B': '1' }, stdin: '' })).toThrow(
      AgentProtocolError,
    );
    expect(() => encodeAgentRequest({ env: { A: 'x\0y' }, stdin: '' })).toThrow(AgentProtocolError);
  });

  it('frames it as an HTTP/1.0 POST with its exact length', () => {
    const raw = agentHttpRequest({ env: { CNI_COMMAND: 'ADD' }, stdin: '{"é":1}' }, 'test/1');
    const text = raw.toString('utf8');
    expect(text).toMatch(/^POST \/v1\/cni HTTP\/1\.0\r\n/);
    expect(text).toContain('User-Agent: test/1\r\n');
    const body = raw.subarray(raw.indexOf('\r\n\r\n') + 4);
    expect(text).toContain(`Content-Length: ${body.length}\r\n`);
    expect(decodeAgentRequest(body)).toEqual({ env: { CNI_COMMAND: 'ADD' }, stdin: '{"é":1}' });
  });
});

const http = (status: string, headers: Record<string, string>, body: Buffer | string): Buffer =>
  Buffer.concat([
    Buffer.from(
      `HTTP/1.1 ${status}\r\n${Object.entries(headers)
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('')}\r\n`,
    ),
    Buffer.from(body),
  ]);

describe('response', () => {
  it('reads back an answer (stdout and stderr split, non-ASCII text intact)', () => {
    const output = { stdout: '{"ips":["é"]}\n', stderr: 'log ü\n', exitCode: 1 as const };
    const { headers, body } = answerResponse(output);
    expect(parseAgentResponse(http('200 OK', headers, body))).toEqual({ kind: 'answer', output });
  });

  it('an empty stdout (DEL) is an answer', () => {
    const { headers, body } = answerResponse({ stdout: '', stderr: '', exitCode: 0 });
    expect(parseAgentResponse(http('200 OK', headers, body))).toEqual({
      kind: 'answer',
      output: { stdout: '', stderr: '', exitCode: 0 },
    });
  });

  it.each<[string, Buffer, string]>([
    ['nothing (the agent died)', Buffer.alloc(0), 'no answer'],
    ['headers cut short', Buffer.from('HTTP/1.1 200 OK\r\ncontent-len'), 'an incomplete answer'],
    [
      'a body cut short',
      (() => {
        const { headers, body } = answerResponse({ stdout: 'abcdef', stderr: '', exitCode: 0 });
        return http('200 OK', headers, body.subarray(0, 3));
      })(),
      'an incomplete answer',
    ],
    [
      'a 421 with its reason',
      http('421 Misdirected Request', { 'x-netledger-fallback': 'another node' }, ''),
      'the agent answered 421: another node',
    ],
    [
      'a 400 with a body',
      http('400 Bad Request', {}, 'bad entry'),
      'the agent answered 400: bad entry',
    ],
    [
      'an exit status that is not 0 or 1',
      http(
        '200 OK',
        { 'content-length': '0', 'x-cni-exit-code': '7', 'x-cni-stdout-length': '0' },
        '',
      ),
      'a malformed answer',
    ],
    [
      'a stdout longer than the body',
      http(
        '200 OK',
        { 'content-length': '1', 'x-cni-exit-code': '0', 'x-cni-stdout-length': '5' },
        'x',
      ),
      'a malformed answer',
    ],
    ['garbage', Buffer.from('SSH-2.0\r\n\r\n'), 'the agent answered garbage'],
  ])('%s is a fallback', (_, raw, reason) => {
    expect(parseAgentResponse(raw)).toEqual({ kind: 'fallback', reason });
  });
});
