import { describe, expect, it } from 'vitest';
import {
  DEFAULT_AGENT_SOCKET,
  DEFAULT_LOCK_FILE,
  DEFAULT_NODENAME_FILE,
  decodeConfigHeader,
  parseNetConf,
} from './net-conf.js';

const conf = (over: Record<string, unknown> = {}, ipam: Record<string, unknown> = {}): string =>
  JSON.stringify({
    cniVersion: '1.0.0',
    name: 'net1',
    ...over,
    ipam: { type: 'netledger-ipam', ...ipam },
  });

describe('parseNetConf defaults', () => {
  it('applies calico-ipam defaults', () => {
    expect(parseNetConf(conf(), {})).toEqual({
      cniVersion: '1.0.0',
      name: 'net1',
      ipam: {
        type: 'netledger-ipam',
        assignIpv4: true,
        assignIpv6: false,
        ipv4Pools: [],
        ipv6Pools: [],
        nodenameFile: DEFAULT_NODENAME_FILE,
        datastore: { type: 'file' },
        lockFile: DEFAULT_LOCK_FILE,
        agentSocket: DEFAULT_AGENT_SOCKET,
        agentTimeouts: { connectMs: 2000, answerMs: 60_000 },
        logLevel: 'info',
        logFormat: 'text',
        mode: 'calico',
        featureControl: { ipAddrsNoIpam: false, floatingIps: false },
      },
    });
  });
});

describe('parseNetConf fields', () => {
  it.each<[string, string, Record<string, unknown>]>([
    [
      'assign_ipv4 "false" + assign_ipv6 "true"',
      conf({}, { assign_ipv4: 'false', assign_ipv6: 'true' }),
      { assignIpv4: false, assignIpv6: true },
    ],
    ['assign_ipv4 "no" still on', conf({}, { assign_ipv4: 'no' }), { assignIpv4: true }],
    [
      'assign_ipv6 "True" stays off (exact "true" only)',
      conf({}, { assign_ipv6: 'True' }),
      { assignIpv6: false },
    ],
    [
      'pools by name and CIDR',
      conf(
        {},
        { ipv4_pools: ['default', '10.0.0.0/16'], ipv6_pools: ['fd00::/64'], assign_ipv6: 'true' },
      ),
      { ipv4Pools: ['default', '10.0.0.0/16'], ipv6Pools: ['fd00::/64'] },
    ],
    [
      'top-level keys (Calico layout)',
      conf({
        nodename: 'n1',
        datastore_type: 'etcdv3',
        etcd_endpoints: 'http://127.0.0.1:2379',
        log_level: 'DEBUG',
        ipam_lock_file: '/tmp/l',
      }),
      {
        nodename: 'n1',
        datastore: { type: 'etcdv3', endpoints: 'http://127.0.0.1:2379' },
        logLevel: 'debug',
        lockFile: '/tmp/l',
      },
    ],
    [
      'ipam keys win over top-level',
      conf({ nodename: 'top' }, { nodename: 'inner' }),
      { nodename: 'inner' },
    ],
    [
      'nodename_file, hostname',
      conf({}, { nodename_file: '/etc/nn', hostname: 'h' }),
      { nodenameFile: '/etc/nn', hostname: 'h' },
    ],
    [
      'kubernetes, kubeconfig at the top level (Calico layout)',
      conf({ datastore_type: 'kubernetes', kubernetes: { kubeconfig: '/etc/cni/net.d/kc' } }),
      { datastore: { type: 'kubernetes', kubeconfig: '/etc/cni/net.d/kc' } },
    ],
    [
      'agent_socket, in ipam or at the top level',
      conf({ agent_socket: '/top.sock' }, { agent_socket: '/run/x/agent.sock' }),
      { agentSocket: '/run/x/agent.sock' },
    ],
    [
      'agent_socket at the top level',
      conf({ agent_socket: '/top.sock' }),
      { agentSocket: '/top.sock' },
    ],
    [
      'agent_connect_timeout and agent_answer_timeout, in seconds',
      conf({ agent_connect_timeout: 9 }, { agent_connect_timeout: 1, agent_answer_timeout: 600 }),
      { agentTimeouts: { connectMs: 1000, answerMs: 600_000 } },
    ],
    [
      "log_level warn, log_file_path with calico-ipam's rotation defaults",
      conf({}, { log_level: 'warn', log_file_path: '/var/log/x.log' }),
      {
        logLevel: 'warning',
        logFormat: 'text',
        logFile: { path: '/var/log/x.log', maxSizeMb: 100, maxAgeDays: 30, maxCount: 10 },
      },
    ],
    [
      'log_level TRACE, log_format json, the log file limits (0 is the default, as calico-ipam reads it)',
      conf(
        { log_file_max_count: 3, log_file_path: '/var/log/top.log' },
        { log_level: 'TRACE', log_format: 'json', log_file_max_size: 1, log_file_max_age: 0 },
      ),
      {
        logLevel: 'trace',
        logFormat: 'json',
        logFile: { path: '/var/log/top.log', maxSizeMb: 1, maxAgeDays: 30, maxCount: 3 },
      },
    ],
  ])('%s', (_, text, expected) => {
    expect(parseNetConf(text, {}).ipam).toMatchObject(expected);
  });

  // The datastore keys' precedence and errors are tested in @netledger/datastore-config.
  it('falls back to libcalico environment variables', () => {
    expect(
      parseNetConf(conf(), {
        DATASTORE_TYPE: 'etcdv3',
        ETCD_ENDPOINTS: 'http://a:1',
        ETCD_CA_CERT_FILE: '/ca',
      }).ipam.datastore,
    ).toEqual({ type: 'etcdv3', endpoints: 'http://a:1', tls: { ca: '/ca' } });
    expect(
      parseNetConf(conf({ datastore_type: 'file' }), { DATASTORE_TYPE: 'etcdv3' }).ipam.datastore
        .type,
    ).toBe('file');
  });

  it('reads prevResult addresses and valid-attachments', () => {
    const parsed = parseNetConf(
      conf({
        prevResult: {
          cniVersion: '1.0.0',
          ips: [{ address: '10.0.0.5/26' }, { address: 'fd00::5/122' }],
        },
        'cni.dev/valid-attachments': [{ containerID: 'a', ifname: 'eth0' }, { containerID: 'b' }],
      }),
      {},
    );
    expect(parsed.prevResultIps).toEqual(['10.0.0.5', 'fd00::5']);
    expect(parsed.validAttachments).toEqual([
      { containerID: 'a', ifname: 'eth0' },
      { containerID: 'b', ifname: '' },
    ]);
  });
});

describe('parseNetConf errors', () => {
  it.each<[string, string, number, string]>([
    ['not JSON', '{"name": ', 6, 'error unmarshalling network config'],
    ['not an object', '[1]', 6, 'not a JSON object'],
    ['no name', JSON.stringify({ cniVersion: '1.0.0' }), 7, 'missing network name'],
    [
      'bad name',
      JSON.stringify({ cniVersion: '1.0.0', name: 'a b' }),
      7,
      'invalid characters found in network name',
    ],
    [
      'cniVersion not a string',
      JSON.stringify({ cniVersion: 1, name: 'n' }),
      6,
      'cniVersion must be a string',
    ],
    [
      'assign_ipv4 as a boolean',
      conf({}, { assign_ipv4: false }),
      6,
      'assign_ipv4 must be a JSON string',
    ],
    [
      'ipam not an object',
      JSON.stringify({ cniVersion: '1.0.0', name: 'n', ipam: 'x' }),
      6,
      'ipam must be an object',
    ],
    ['pools not a list', conf({}, { ipv4_pools: '10.0.0.0/8' }), 6, 'ipv4_pools must be a list'],
    [
      'bad pool CIDR',
      conf({}, { ipv4_pools: ['10.0.0.0/99'] }),
      7,
      'error parsing pool "10.0.0.0/99"',
    ],
    [
      'v6 pool in ipv4_pools',
      conf({}, { ipv4_pools: ['fd00::/64'] }),
      7,
      `"fd00::" isn't a IPv4 address`,
    ],
    [
      'v4 pool in ipv6_pools',
      conf({}, { assign_ipv6: 'true', ipv6_pools: ['10.0.0.0/8'] }),
      7,
      `"10.0.0.0" isn't a IPv6 address`,
    ],
    ['nothing to assign', conf({}, { assign_ipv4: 'false' }), 7, 'nothing to assign'],
    ['unknown log_level', conf({}, { log_level: 'loud' }), 7, 'log_level "loud" is not one of'],
    ['unknown log_format', conf({}, { log_format: 'yaml' }), 7, 'log_format "yaml" is not one of'],
    [
      'log_file_max_size as a string',
      conf({}, { log_file_max_size: '100' }),
      6,
      'log_file_max_size must be a JSON number',
    ],
    [
      'negative log_file_max_count',
      conf({}, { log_file_max_count: -1 }),
      7,
      'log_file_max_count -1 is not a whole number above 0',
    ],
    [
      'fractional log_file_max_age',
      conf({}, { log_file_max_age: 1.5 }),
      7,
      'log_file_max_age 1.5 is not a whole number above 0',
    ],
    [
      'agent_answer_timeout as a string',
      conf({}, { agent_answer_timeout: '60' }),
      6,
      'agent_answer_timeout must be a JSON number, got string',
    ],
    [
      'agent_answer_timeout past 600 s',
      conf({}, { agent_answer_timeout: 601 }),
      7,
      'agent_answer_timeout 601 is not a whole number of seconds from 1 to 600',
    ],
    [
      'agent_connect_timeout of half a second',
      conf({}, { agent_connect_timeout: 0.5 }),
      7,
      'agent_connect_timeout 0.5 is not a whole number of seconds from 1 to 60',
    ],
    [
      'datastore_type as a number',
      conf({}, { datastore_type: 3 }),
      6,
      'failed to load netconf: datastore_type must be a JSON string, got number',
    ],
    [
      'unknown datastore',
      conf({}, { datastore_type: 'consul' }),
      7,
      'datastore_type: unknown datastore type "consul"',
    ],
    [
      'etcd without endpoints',
      conf({}, { datastore_type: 'etcdv3' }),
      7,
      'needs etcd endpoints (etcd_endpoints or ETCD_ENDPOINTS)',
    ],
    [
      'an unknown etcd_transport',
      conf({}, { datastore_type: 'etcdv3', etcd_endpoints: 'http://e:2379', etcd_transport: 'h2' }),
      7,
      'etcd_transport must be "http" or "grpc", not "h2"',
    ],
    [
      'etcd_discovery_srv',
      conf({}, { datastore_type: 'etcdv3', etcd_discovery_srv: 'example.com' }),
      2,
      'etcd_discovery_srv is not supported',
    ],
    ['bad log_level', conf({}, { log_level: 'loud' }), 7, 'log_level "loud"'],
    [
      'relative agent_socket',
      conf({}, { agent_socket: 'run/node.sock' }),
      7,
      'agent_socket "run/node.sock" is not an absolute path',
    ],
    [
      'agent_socket as a number',
      conf({}, { agent_socket: 3 }),
      6,
      'agent_socket must be a JSON string',
    ],
    ['prevResult not an object', conf({ prevResult: 3 }), 6, 'prevResult must be an object'],
    [
      'valid-attachments not a list',
      conf({ 'cni.dev/valid-attachments': {} }),
      6,
      'valid-attachments must be a list',
    ],
  ])('%s -> code %d', (_, text, code, msg) => {
    expect(() => parseNetConf(text, {})).toThrow(
      expect.objectContaining({ code, message: expect.stringContaining(msg) }),
    );
  });

  it('decodeConfigHeader defaults cniVersion to 0.1.0 like libcni', () => {
    expect(decodeConfigHeader('{"name":"n"}')).toEqual({ name: 'n', cniVersion: '0.1.0' });
  });
});
