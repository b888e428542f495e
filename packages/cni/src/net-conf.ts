import { parseCidr } from '@netledger/accounting';
import {
  readEnvSettings,
  readNetConfSettings,
  resolveDatastoreConfig,
} from '@netledger/datastore-config';
import type { DatastoreConfig } from '@netledger/datastore-config';
import { parseLogFormat, parseLogLevel } from '@netledger/log';
import type { LogFormat, LogLevel } from '@netledger/log';
import { CniError, CniErrorCode, toCniError } from './cni-error.js';
import type { Env } from './cni-request.js';
import { parseGatewayConf } from './gateway-conf.js';
import type { GatewayConf, ResultMode } from './gateway-conf.js';
import type { FeatureControl } from './k8s/feature-control.js';
import { parseFeatureControl } from './k8s/feature-control.js';

/** Log levels of `log_level`: Calico's (logrus's) names; `warn` is accepted for `warning`. */
export type { LogLevel } from '@netledger/log';

/**
 * The rotation of `log_file_path`, calico-ipam's keys and defaults: `log_file_max_size` (MB,
 * default 100), `log_file_max_age` (days, default 30), `log_file_max_count` (backups, default 10).
 */
export interface LogFileConf {
  readonly path: string;
  readonly maxSizeMb: number;
  readonly maxAgeDays: number;
  readonly maxCount: number;
}

/** The IPAM part of the network configuration, with calico-ipam's defaults applied. */
export interface IpamConf {
  readonly type: string;
  readonly assignIpv4: boolean;
  readonly assignIpv6: boolean;
  /** Pool names or CIDRs, in order. */
  readonly ipv4Pools: readonly string[];
  readonly ipv6Pools: readonly string[];
  readonly nodename?: string;
  readonly nodenameFile: string;
  readonly hostname?: string;
  readonly datastore: DatastoreConfig;
  readonly lockFile: string;
  /** The node agent's socket (`agent_socket`, default {@link DEFAULT_AGENT_SOCKET}). */
  readonly agentSocket: string;
  /**
   * How long the plugin's client waits for the node agent: to connect (`agent_connect_timeout`,
   * seconds, default 2; then it runs the command itself) and for the answer once the request is
   * sent (`agent_answer_timeout`, seconds, default 60; then it fails "try again later", 11).
   */
  readonly agentTimeouts: { readonly connectMs: number; readonly answerMs: number };
  readonly logLevel: LogLevel;
  /** `log_format`: `text` (default) or `json`, on stderr and in the log file alike. */
  readonly logFormat: LogFormat;
  /** `log_file_path` and its rotation, when a log file is configured. */
  readonly logFile?: LogFileConf;
  /** How ADD shapes its result (`mode`, read from `ipam` only); see gateway-conf.ts. */
  readonly mode: ResultMode;
  /** The gateway-mode keys, present exactly when `mode` is `gateway`. */
  readonly gateway?: GatewayConf;
  /** `feature_control`: Calico's gates on the `ipAddrsNoIpam` and `floatingIPs` annotations. */
  readonly featureControl: FeatureControl;
}

/** One entry of GC's `cni.dev/valid-attachments`. */
export interface Attachment {
  readonly containerID: string;
  readonly ifname: string;
}

/** The network configuration read from stdin. */
export interface NetConf {
  readonly cniVersion: string;
  readonly name: string;
  readonly ipam: IpamConf;
  /** Addresses (without prefix) of CHECK's `prevResult`, when one was given. */
  readonly prevResultIps?: readonly string[];
  /** GC's `cni.dev/valid-attachments`, when given. */
  readonly validAttachments?: readonly Attachment[];
}

/** calico-ipam's default `nodename_file`. */
export const DEFAULT_NODENAME_FILE = '/var/lib/calico/nodename';
/** Default `ipam_lock_file`: one lock per host. */
export const DEFAULT_LOCK_FILE = '/run/netledger/ipam.lock';
/** Default `agent_socket`: where netledger-node, the node agent, listens (docs/node-agent.md). */
export const DEFAULT_AGENT_SOCKET = '/run/netledger/node.sock';
/**
 * Default `agent_connect_timeout` and `agent_answer_timeout`, in seconds: well under what a
 * runtime gives one CNI call (kubelet and containerd allow a few minutes at most), so a hung
 * agent costs a pod start a bounded wait, never the runtime's own timeout.
 */
const DEFAULT_AGENT_TIMEOUTS = { connect: 2, answer: 60 } as const;
/** The longest `agent_connect_timeout` and `agent_answer_timeout` accepted, in seconds. */
const MAX_AGENT_TIMEOUTS = { connect: 60, answer: 600 } as const;

type Json = Record<string, unknown>;

const decoding = (msg: string): CniError => new CniError(CniErrorCode.DecodingFailure, msg);
const invalid = (msg: string): CniError => new CniError(CniErrorCode.InvalidNetworkConfig, msg);

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

function parseObject(text: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw decoding(`error unmarshalling network config: ${(e as Error).message}`);
  }
  if (!isObject(value)) throw decoding('error unmarshalling network config: not a JSON object');
  return value;
}

const VALID_NAME = /^[a-zA-Z0-9][a-zA-Z0-9_.-]*$/;

/**
 * What libcni's skel reads before a command: the network name (required, `[a-zA-Z0-9_.-]`,
 * else `InvalidNetworkConfig` 7) and `cniVersion` (`0.1.0` when absent). Malformed JSON is
 * `DecodingFailure` (6).
 */
export function decodeConfigHeader(text: string): { name: string; cniVersion: string } {
  const o = parseObject(text);
  const name = o['name'];
  const version = o['cniVersion'] ?? '0.1.0';
  if (typeof version !== 'string') throw decoding('cniVersion must be a string');
  if (name === undefined || name === '') throw invalid('missing network name');
  if (typeof name !== 'string') throw decoding('network name must be a string');
  if (!VALID_NAME.test(name)) {
    throw new CniError(
      CniErrorCode.InvalidNetworkConfig,
      'invalid characters found in network name',
      {
        details: name,
      },
    );
  }
  return { name, cniVersion: version };
}

/** Reads one field, from `ipam` first and then the top level (where calico-ipam reads it). */
function field(top: Json, ipam: Json, key: string): unknown {
  return ipam[key] ?? top[key];
}

function str(top: Json, ipam: Json, key: string): string | undefined {
  const v = field(top, ipam, key);
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') {
    throw decoding(`failed to load netconf: ${key} must be a JSON string, got ${typeof v}`);
  }
  return v === '' ? undefined : v;
}

function pools(
  top: Json,
  ipam: Json,
  { key, version }: { readonly key: string; readonly version: 4 | 6 },
): string[] {
  const v = field(top, ipam, key);
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v) || v.some((p) => typeof p !== 'string' || p === '')) {
    throw decoding(`failed to load netconf: ${key} must be a list of pool names or CIDRs`);
  }
  for (const p of v as string[]) {
    if (!p.includes('/')) continue;
    let cidr;
    try {
      cidr = parseCidr(p, { strict: false });
    } catch {
      throw invalid(`error parsing pool ${JSON.stringify(p)}: invalid CIDR address`);
    }
    if (cidr.version !== version) {
      throw invalid(
        `error parsing pool ${JSON.stringify(p)}: "${p.split('/')[0]}" isn't a IPv${version} address`,
      );
    }
  }
  return v as string[];
}

/** `agent_socket`: an absolute path (a relative one would depend on the runtime's directory). */
function agentSocket(text: string | undefined): string {
  if (text === undefined) return DEFAULT_AGENT_SOCKET;
  if (!text.startsWith('/') || text.includes('\0')) {
    throw invalid(`agent_socket ${JSON.stringify(text)} is not an absolute path`);
  }
  return text;
}

/** A whole number of seconds from 1 to `max` (`agent_*_timeout`), or `fallback` when absent. */
function seconds(
  top: Json,
  ipam: Json,
  { key, fallback, max }: { readonly key: string; readonly fallback: number; readonly max: number },
): number {
  const v = field(top, ipam, key);
  if (v === undefined || v === null) return fallback;
  if (typeof v !== 'number') {
    throw decoding(`failed to load netconf: ${key} must be a JSON number, got ${typeof v}`);
  }
  if (!Number.isInteger(v) || v < 1 || v > max) {
    throw invalid(`${key} ${v} is not a whole number of seconds from 1 to ${max}`);
  }
  return v;
}

function logLevel(text: string | undefined): LogLevel {
  const l = parseLogLevel(text ?? 'info');
  if (l) return l;
  throw invalid(
    `log_level ${JSON.stringify(text)} is not one of panic, fatal, error, warning, info, debug, trace`,
  );
}

function logFormat(text: string | undefined): LogFormat {
  const f = parseLogFormat(text ?? 'text');
  if (f) return f;
  throw invalid(`log_format ${JSON.stringify(text)} is not one of text, json`);
}

/** calico-ipam's defaults of the log file's limits (its ConfigureLogging: 0 means the default). */
const LOG_FILE_DEFAULTS = { maxSizeMb: 100, maxAgeDays: 30, maxCount: 10 } as const;

/** A `log_file_max_*` key: a whole number, the default when absent or 0 (as calico-ipam reads it). */
function logFileLimit(v: unknown, key: string, fallback: number): number {
  if (v === undefined || v === null || v === 0) return fallback;
  if (typeof v !== 'number') {
    throw decoding(`failed to load netconf: ${key} must be a JSON number, got ${typeof v}`);
  }
  if (!Number.isSafeInteger(v) || v < 0) throw invalid(`${key} ${v} is not a whole number above 0`);
  return v;
}

function logFile(top: Json, ipam: Json, path: string | undefined): LogFileConf | undefined {
  const limit = (key: string, fallback: number) =>
    logFileLimit(field(top, ipam, key), key, fallback);
  const conf = {
    maxSizeMb: limit('log_file_max_size', LOG_FILE_DEFAULTS.maxSizeMb),
    maxAgeDays: limit('log_file_max_age', LOG_FILE_DEFAULTS.maxAgeDays),
    maxCount: limit('log_file_max_count', LOG_FILE_DEFAULTS.maxCount),
  };
  return path === undefined ? undefined : { path, ...conf };
}

/**
 * The store settings, calico-ipam's way: each key from the netconf (`ipam`, then the top level),
 * else its libcalico environment variable.
 */
function datastore(top: Json, ipam: Json, env: Env): DatastoreConfig {
  try {
    return resolveDatastoreConfig([readNetConfSettings({ top, ipam }), readEnvSettings(env)]);
  } catch (e) {
    throw toCniError(e);
  }
}

function prevResultIps(top: Json): string[] | undefined {
  const prev = top['prevResult'];
  if (prev === undefined || prev === null) return undefined;
  if (!isObject(prev)) throw decoding('prevResult must be an object');
  const ips = prev['ips'] ?? [];
  if (!Array.isArray(ips)) throw decoding('prevResult.ips must be a list');
  return ips.map((ip) => {
    const address = isObject(ip) ? ip['address'] : undefined;
    if (typeof address !== 'string') throw decoding('prevResult.ips[].address must be a string');
    return address.split('/')[0]!;
  });
}

function validAttachments(top: Json): Attachment[] | undefined {
  const list = top['cni.dev/valid-attachments'];
  if (list === undefined || list === null) return undefined;
  if (!Array.isArray(list)) throw decoding('cni.dev/valid-attachments must be a list');
  return list.map((a) => {
    if (!isObject(a) || typeof a['containerID'] !== 'string') {
      throw decoding('cni.dev/valid-attachments entries need a containerID string');
    }
    return {
      containerID: a['containerID'],
      ifname: typeof a['ifname'] === 'string' ? a['ifname'] : '',
    };
  });
}

/**
 * Parses the network configuration with calico-ipam's keys and defaults. Each key is read from
 * the `ipam` object first and then from the top level, where calico-ipam reads it (so a
 * Calico config works unchanged, and a bridge config can keep everything under `ipam`).
 * `assign_ipv4`/`assign_ipv6` are JSON strings: IPv4 is on unless `"false"`, IPv6 off unless
 * `"true"`. Datastore settings (`@netledger/datastore-config`) fall back to libcalico's
 * environment variables (`DATASTORE_TYPE`, `ETCD_ENDPOINTS`, `ETCD_*_FILE`, `KUBECONFIG`) and
 * `NETLEDGER_DATASTORE_PATH`.
 *
 * `mode` and the gateway-mode keys are read from `ipam` only (gateway-conf.ts); without `mode`
 * the main plugin (the top-level `type`) chooses it: `calico` under Calico's plugin or none,
 * `gateway` under any other.
 *
 * Throws `DecodingFailure` (6) for malformed JSON or a value of the wrong JSON type,
 * `InvalidNetworkConfig` (7) for a bad value (a pool of the wrong family, an unknown datastore
 * type, etcd without endpoints, nothing to assign, a bad mode, subnet or gateway),
 * `UnsupportedField` (2) for `etcd_discovery_srv`.
 */
export function parseNetConf(text: string, env: Env): NetConf {
  const { name, cniVersion } = decodeConfigHeader(text);
  const top = parseObject(text);
  const ipamValue = top['ipam'] ?? {};
  if (!isObject(ipamValue)) throw decoding('failed to load netconf: ipam must be an object');
  const ipam = ipamValue;
  const s = (key: string): string | undefined => str(top, ipam, key);
  const assignIpv4 = s('assign_ipv4') !== 'false';
  const assignIpv6 = s('assign_ipv6') === 'true';
  if (!assignIpv4 && !assignIpv6) {
    throw invalid('nothing to assign: assign_ipv4 is "false" and assign_ipv6 is not "true"');
  }
  const nodename = s('nodename');
  const hostname = s('hostname');
  const logFileConf = logFile(top, ipam, s('log_file_path'));
  const prev = prevResultIps(top);
  const attachments = validAttachments(top);
  const { mode, gateway } = parseGatewayConf(ipam, top['type']);
  return {
    cniVersion,
    name,
    ipam: {
      type: typeof ipam['type'] === 'string' ? ipam['type'] : '',
      assignIpv4,
      assignIpv6,
      ipv4Pools: pools(top, ipam, { key: 'ipv4_pools', version: 4 }),
      ipv6Pools: pools(top, ipam, { key: 'ipv6_pools', version: 6 }),
      ...(nodename !== undefined && { nodename }),
      nodenameFile: s('nodename_file') ?? DEFAULT_NODENAME_FILE,
      ...(hostname !== undefined && { hostname }),
      datastore: datastore(top, ipam, env),
      lockFile: s('ipam_lock_file') ?? DEFAULT_LOCK_FILE,
      agentSocket: agentSocket(s('agent_socket')),
      agentTimeouts: {
        connectMs:
          1000 *
          seconds(top, ipam, {
            key: 'agent_connect_timeout',
            fallback: DEFAULT_AGENT_TIMEOUTS.connect,
            max: MAX_AGENT_TIMEOUTS.connect,
          }),
        answerMs:
          1000 *
          seconds(top, ipam, {
            key: 'agent_answer_timeout',
            fallback: DEFAULT_AGENT_TIMEOUTS.answer,
            max: MAX_AGENT_TIMEOUTS.answer,
          }),
      },
      logLevel: logLevel(s('log_level')),
      logFormat: logFormat(s('log_format')),
      ...(logFileConf !== undefined && { logFile: logFileConf }),
      mode,
      ...(gateway !== undefined && { gateway }),
      featureControl: parseFeatureControl(top, ipam),
    },
    ...(prev !== undefined && { prevResultIps: prev }),
    ...(attachments !== undefined && { validAttachments: attachments }),
  };
}
