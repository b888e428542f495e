import { describe, expect, it } from 'vitest';
import { parseAnswer } from './unix-http.js';
import { thrown } from './test-fixtures.js';

const raw = (text: string) => Buffer.from(text, 'utf8');

describe('parseAnswer', () => {
  it('reads the status and a Content-Length body (multi-byte text included)', () => {
    expect(parseAnswer(raw('HTTP/1.1 409 Conflict\r\ncontent-length: 8\r\n\r\n{"é":1}'))).toEqual({
      status: 409,
      body: '{"é":1}',
    });
  });

  it('reads a body up to the end of the connection without Content-Length', () => {
    expect(parseAnswer(raw('HTTP/1.0 200 OK\r\n\r\nhello'))).toEqual({
      status: 200,
      body: 'hello',
    });
  });

  it('decodes a chunked body', () => {
    const text =
      'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n';
    expect(parseAnswer(raw(text))).toEqual({ status: 200, body: 'abcde' });
  });

  it.each([
    ['nothing', ''],
    ['no end of headers', 'HTTP/1.1 200 OK\r\n'],
    ['not HTTP', 'SSH-2.0-OpenSSH\r\n\r\n'],
    ['a short body', 'HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc'],
    ['a truncated chunk', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n9\r\nabc'],
  ])('refuses %s as DaemonUnavailable', (_why, text) => {
    expect(thrown(() => parseAnswer(raw(text)))).toMatchObject({ code: 'DaemonUnavailable' });
  });
});
