import { describe, expect, it } from 'vitest';
import { DeviceError } from './device-error.js';
import { USAGE, UsageError, describeFailure, parseCommandLine } from './command-line.js';

describe('parseCommandLine', () => {
  it('splits verb, target and the rest, and keeps the options', () => {
    const cli = parseCommandLine(['start', 'app', 'extra', '--socket', '/tmp/s.sock']);
    expect(cli).toMatchObject({ verb: 'start', target: 'app', extra: ['extra'], json: false });
    expect(cli.values.socket).toBe('/tmp/s.sock');
  });

  it.each([
    [['leases', '--output', 'json'], true],
    [['leases', '--json'], true],
    [['leases', '--output', 'text'], false],
    [['leases'], false],
  ])('%j asks for JSON: %s', (argv, json) => {
    expect(parseCommandLine(argv).json).toBe(json);
  });

  it('refuses an --output other than text or json', () => {
    expect(() => parseCommandLine(['leases', '--output', 'yaml'])).toThrow(UsageError);
  });

  it('takes --force for apply only', () => {
    expect(parseCommandLine(['apply', '--state', '/s', '--force']).values.force).toBe(true);
    expect(parseCommandLine(['apply']).values.force).toBeUndefined();
    expect(() => parseCommandLine(['start', 'app', '--force'])).toThrow(
      new UsageError('--force is an option of apply only'),
    );
  });

  it('lets parseArgs refuse an unknown option', () => {
    expect(() => parseCommandLine(['leases', '--nope'])).toThrow(
      expect.objectContaining({ code: 'ERR_PARSE_ARGS_UNKNOWN_OPTION' }),
    );
  });
});

describe('describeFailure', () => {
  it('reports a usage error with the usage on stderr, exit 2', () => {
    expect(describeFailure(new UsageError('bad'), true)).toEqual({
      exitCode: 2,
      stderr: `netledger-device: bad\n${USAGE}\n`,
    });
  });

  it('treats parseArgs errors as usage errors', () => {
    let error: unknown;
    try {
      parseCommandLine(['--nope']);
    } catch (e) {
      error = e;
    }
    expect(describeFailure(error, false).exitCode).toBe(2);
  });

  it.each([
    ['UnknownPool', 1],
    ['InvalidTemplateArgs', 1],
    ['DropsInUse', 1],
    ['RouteConflict', 1],
    ['DaemonUnavailable', 3],
    ['HostFailure', 3],
    ['LeaseStoreCorrupt', 3],
  ] as const)('exits for %s with %i', (code, exitCode) => {
    expect(describeFailure(new DeviceError(code, 'why'), false)).toEqual({
      exitCode,
      stderr: `netledger-device: ${code}: why\n`,
    });
  });

  it('puts a DeviceError on stdout as {"error": ...} with --output json', () => {
    const f = describeFailure(new DeviceError('UnknownPool', 'no pool p', { field: 'pool' }), true);
    expect(f.exitCode).toBe(1);
    expect(f.stderr).toBeUndefined();
    expect(JSON.parse(f.stdout!)).toEqual({
      error: { code: 'UnknownPool', message: 'no pool p', field: 'pool' },
    });
  });

  it('reports anything else on stderr with exit 3', () => {
    expect(describeFailure(new Error('boom'), true)).toEqual({
      exitCode: 3,
      stderr: 'netledger-device: boom\n',
    });
  });
});
