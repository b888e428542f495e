import { describe, expect, it } from 'vitest';
import { formatDuration, parseDuration } from './duration.js';
import {
  parseListen,
  parseRunArgs,
  readKubeControllersConfiguration,
  resolveRunConfig,
} from './run-config.js';

describe('parseDuration', () => {
  it.each([
    ['15m', 900_000],
    ['1h30m', 5_400_000],
    ['90s', 90_000],
    ['1.5h', 5_400_000],
    ['250ms', 250],
    ['1500000\u00b5s', 1500],
    ['1500000\u03bcs', 1500],
    ['0', 0],
    ['0s', 0],
    ['2m0s', 120_000],
  ])('%s = %d ms', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '-5m', '15', 'm', '15 m', '1d', 'soon'])('refuses %j', (text) => {
    expect(() => parseDuration(text)).toThrow(/invalid duration/);
  });

  it('formats', () => {
    expect([0, 900_000, 5_400_500, 1500].map(formatDuration)).toEqual([
      '0s',
      '15m',
      '1h30m500ms',
      '1s500ms',
    ]);
  });
});

describe('resolveRunConfig', () => {
  const resolve = (argv: string[], env: Record<string, string> = {}, spec?: object) =>
    resolveRunConfig(parseRunArgs(argv, env), spec && { name: 'default', spec });

  it("has Calico's defaults", () => {
    expect(resolve([])).toMatchObject({
      kubeconfig: undefined,
      leakGracePeriodMs: 900_000,
      maxReleasesPerPass: 10_000,
      metricsListen: { host: '0.0.0.0', port: 9094 },
      logLevel: 'info',
      leaseNamespace: 'kube-system',
      leaseName: 'netledger-kube-controllers',
      gcEnabled: true,
    });
  });

  it('runs the LoadBalancer controller in auto mode unless told otherwise (Calico: a resource without controllers.loadBalancer turns it off)', () => {
    expect(resolve([])).toMatchObject({
      loadBalancer: 'auto',
      loadBalancerAssignIps: 'AllServices',
    });
    expect(resolve([], {}, { controllers: { node: {} } })).toMatchObject({ loadBalancer: 'off' });
    expect(
      resolve([], {}, { controllers: { loadBalancer: { assignIPs: 'RequestedServicesOnly' } } }),
    ).toMatchObject({
      loadBalancer: 'on',
      loadBalancerAssignIps: 'RequestedServicesOnly',
      gcEnabled: false,
    });
    expect(
      resolve(
        ['--load-balancer', 'on'],
        { NETLEDGER_LOAD_BALANCER_ASSIGN_IPS: 'RequestedServicesOnly' },
        {
          controllers: { node: {} },
        },
      ),
    ).toMatchObject({
      loadBalancer: 'on',
      loadBalancerAssignIps: 'RequestedServicesOnly',
      sources: { loadBalancer: 'flag', loadBalancerAssignIps: 'env' },
    });
    expect(resolve([], { NETLEDGER_LOAD_BALANCER: 'off' })).toMatchObject({ loadBalancer: 'off' });
  });

  it.each([
    [
      ['--load-balancer', 'maybe'],
      {},
      undefined,
      '--load-balancer: must be auto, on or off, got "maybe"',
    ],
    [
      [],
      { NETLEDGER_LOAD_BALANCER_ASSIGN_IPS: 'Some' },
      undefined,
      'NETLEDGER_LOAD_BALANCER_ASSIGN_IPS: must be AllServices or RequestedServicesOnly, got "Some"',
    ],
    [
      [],
      {},
      { controllers: { loadBalancer: { assignIPs: 'Some' } } },
      'KubeControllersConfiguration default: spec.controllers.loadBalancer.assignIPs must be AllServices or RequestedServicesOnly, got "Some"',
    ],
  ])('refuses a bad LoadBalancer setting %j %j %j', (argv, env, spec, message) => {
    expect(() => resolve(argv, env, spec)).toThrow(message);
  });

  it('takes a flag over its variable over the resource', () => {
    const spec = {
      controllers: { node: { leakGracePeriod: '5m' } },
      prometheusMetricsPort: 9100,
      logSeverityScreen: 'Warning',
    };
    expect(resolve([], {}, spec)).toMatchObject({
      leakGracePeriodMs: 300_000,
      metricsListen: { port: 9100 },
      logLevel: 'warn',
      sources: { leakGracePeriod: 'resource' },
    });
    expect(resolve([], { NETLEDGER_LEAK_GRACE_PERIOD: '1m' }, spec)).toMatchObject({
      leakGracePeriodMs: 60_000,
      sources: { leakGracePeriod: 'env' },
    });
    expect(
      resolve(['--leak-grace-period', '0'], { NETLEDGER_LEAK_GRACE_PERIOD: '1m' }, spec),
    ).toMatchObject({ leakGracePeriodMs: 0, sources: { leakGracePeriod: 'flag' } });
    expect(resolve(['--metrics-listen', '127.0.0.1:0'], {}, spec).metricsListen).toEqual({
      host: '127.0.0.1',
      port: 0,
    });
  });

  it('reads the kubeconfig from --kubeconfig, else KUBECONFIG', () => {
    expect(resolve(['--kubeconfig', '/a'], { KUBECONFIG: '/b' }).kubeconfig).toBe('/a');
    expect(resolve([], { KUBECONFIG: '/b' }).kubeconfig).toBe('/b');
  });

  it("follows Calico's resource semantics: no leakGracePeriod is unset, no node controller is off", () => {
    expect(resolve([], {}, { controllers: { node: {} } })).toMatchObject({
      leakGracePeriodMs: null,
      gcEnabled: true,
    });
    expect(resolve([], {}, { controllers: {} })).toMatchObject({ gcEnabled: false });
  });

  it.each([
    [
      ['--leak-grace-period', 'soon'],
      {},
      undefined,
      '--leak-grace-period: invalid duration "soon"',
    ],
    [
      [],
      { NETLEDGER_LEAK_GRACE_PERIOD: '-1m' },
      undefined,
      'NETLEDGER_LEAK_GRACE_PERIOD: invalid duration "-1m"',
    ],
    [
      ['--max-releases-per-pass', '0'],
      {},
      undefined,
      '--max-releases-per-pass: must be a whole number >= 1, got "0"',
    ],
    [['--metrics-listen', '9094'], {}, undefined, '--metrics-listen: expected HOST:PORT'],
    [['--log-level', 'loud'], {}, undefined, '--log-level: unknown log level "loud"'],
    [['--lease-name', 'Bad_Name'], {}, undefined, '--lease-name: not a valid Kubernetes name'],
    [
      ['--lease-duration', '1s'],
      {},
      undefined,
      'leader election needs lease duration > renew deadline > retry period',
    ],
    [
      [],
      {},
      { controllers: { node: { leakGracePeriod: 'forever' } } },
      'KubeControllersConfiguration default: spec.controllers.node.leakGracePeriod: invalid duration',
    ],
    [
      [],
      {},
      { controllers: {}, prometheusMetricsPort: 70000 },
      'KubeControllersConfiguration default: spec.prometheusMetricsPort must be a port',
    ],
    [
      [],
      {},
      { controllers: {}, logSeverityScreen: 'Loud' },
      'spec.logSeverityScreen: unknown severity "Loud"',
    ],
    [[], {}, {}, 'KubeControllersConfiguration default: spec.controllers is required'],
  ])('refuses %j %j %j', (argv, env, spec, message) => {
    expect(() => resolve(argv, env, spec)).toThrow(
      expect.objectContaining({
        name: 'RunConfigError',
        message: expect.stringContaining(message),
      }),
    );
  });

  it('refuses unknown flags', () => {
    expect(() => parseRunArgs(['--leak'], {})).toThrow(
      expect.objectContaining({ name: 'RunConfigError' }),
    );
    expect(() => parseRunArgs(['stray'], {})).toThrow(
      expect.objectContaining({ name: 'RunConfigError' }),
    );
  });

  it('parses listen addresses', () => {
    expect(parseListen('[::1]:9094', 'x')).toEqual({ host: '::1', port: 9094 });
    expect(parseListen(':9094', 'x')).toEqual({ host: '0.0.0.0', port: 9094 });
    expect(() => parseListen('host:99999', 'x')).toThrow(/expected HOST:PORT/);
  });
});

describe('readKubeControllersConfiguration', () => {
  it('is undefined when the resource (or its CRD) does not exist', async () => {
    const notFound = Object.assign(new Error('nf'), { code: 404 });
    await expect(
      readKubeControllersConfiguration(
        () => Promise.reject(notFound),
        (e) => (e as { code?: number }).code === 404,
      ),
    ).resolves.toBeUndefined();
  });

  it('passes other errors on', async () => {
    await expect(
      readKubeControllersConfiguration(
        () => Promise.reject(new Error('Forbidden')),
        () => false,
      ),
    ).rejects.toThrow('Forbidden');
  });

  it('returns the spec', async () => {
    const obj = {
      metadata: { name: 'default' },
      spec: { controllers: { node: { leakGracePeriod: '1m' } } },
    };
    await expect(
      readKubeControllersConfiguration(
        async () => obj,
        () => false,
      ),
    ).resolves.toEqual({ name: 'default', spec: obj.spec });
  });
});
