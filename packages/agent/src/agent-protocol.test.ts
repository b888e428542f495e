import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  AgentProtocolError,
  agentHttpRequest,
  answerResponse,
  decodeAgentRequest,
  encodeAgentRequest,
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

describe('answer', () => {
  it("frames the plugin's output as the static client reads it: stdout, then stderr, with their lengths", () => {
    const { headers, body } = answerResponse({
      stdout: '{"é":1}',
      stderr: 'a log line\n',
      exitCode: 1,
    });
    expect(headers).toEqual({
      'x-cni-exit-code': '1',
      'x-cni-stdout-length': String(Buffer.byteLength('{"é":1}')),
      'content-type': 'application/octet-stream',
      'content-length': String(body.length),
    });
    expect(body.toString('utf8')).toBe('{"é":1}a log line\n');
  });
});
