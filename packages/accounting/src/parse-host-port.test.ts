import { describe, expect, it } from 'vitest';
import { parseHostPort } from './parse-host-port.js';

describe('parseHostPort', () => {
  it.each([
    ['127.0.0.1:9094', { host: '127.0.0.1', port: 9094 }],
    ['[::1]:9095', { host: '::1', port: 9095 }],
    [':9094', { host: '0.0.0.0', port: 9094 }],
    ['node-1:0', { host: 'node-1', port: 0 }],
  ])('%s', (text, hostPort) => expect(parseHostPort(text)).toEqual(hostPort));

  it.each(['9094', '::1:9094', 'host:99999', 'host:', 'host:9x', '[::1]9094'])(
    'refuses %j',
    (text) => expect(parseHostPort(text)).toBeUndefined(),
  );
});
