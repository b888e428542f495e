export { DeviceError, isDeviceError } from './device-error.js';
export type { DeviceErrorCode } from './device-error.js';
export { formatIpv4, formatIpv4Subnet, macForIpv4, parseIpv4, parseIpv4Subnet } from './ipv4.js';
export type { Ipv4Subnet } from './ipv4.js';
export { isValidName, normaliseMac } from './validate-name.js';
export type { NameKind } from './validate-name.js';
export { poolCapacity, toPoolSpec } from './pool.js';
export type { Pool, PoolRegistry, PoolSpec } from './pool.js';
export {
  MAX_POOL_PREFIX,
  MIN_POOL_PREFIX,
  parseDeviceJson,
  parsePool,
  parsePools,
} from './parse-device-json.js';
export { NO_NETWORK } from './container-network.js';
export type {
  ContainerNetwork,
  InterfaceSpec,
  NetworkMode,
  StaticAddress,
} from './container-network.js';
export { parseNetworkBlock, parseRunJson } from './parse-run-json.js';
export type { ParseRunJsonOptions } from './parse-run-json.js';
export { renderNetworkArgs } from './render-network-args.js';
export type { NetworkArgs, RenderedNetworkBlock } from './render-network-args.js';
export { scanLxcConfig } from './scan-lxc-config.js';
export type { BakedAddress, LxcConfigScan } from './scan-lxc-config.js';
export { parseRevision } from './revision.js';
export type { ContainerEntry, Revision, RevisionFiles } from './revision.js';
export {
  EMPTY_LEASE_BOOK,
  filterLeases,
  leaseKey,
  leasesInPool,
  leasesOfContainer,
  reservationOwner,
  withLease,
} from './lease.js';
export type { Lease, LeaseBook, LeaseKind } from './lease.js';
export { allocateAddress } from './allocate-address.js';
export type { AllocateArgs, LeaseResult } from './allocate-address.js';
export { reserveStaticAddress } from './reserve-static-address.js';
export type { ReserveStaticArgs } from './reserve-static-address.js';
export { reserveBakedAddresses } from './reserve-baked-addresses.js';
export type { BakedOutcome, BakedReservation } from './reserve-baked-addresses.js';
export { formatLxcNetwork, renderLxcNetwork } from './render-lxc-network.js';
export type { LxcInterface, LxcNetworkConfig } from './render-lxc-network.js';
export { planStart } from './plan-start.js';
export type { StartPlan } from './plan-start.js';
export { diffPools, samePool } from './diff-pools.js';
export type { PoolDiff } from './diff-pools.js';
export { planRevision } from './plan-revision.js';
export type { RevisionPlan } from './plan-revision.js';
export { decodeLeaseFile, encodeLeaseFile } from './lease-codec.js';
export type { PersistedState } from './lease-codec.js';
export { createFileLeaseStore, createMemoryLeaseStore, LEASE_FILE } from './file-lease-store.js';
export type { LeaseStore } from './file-lease-store.js';
export {
  decodeErrno,
  decodeLink,
  encodeAttr,
  encodeIpv4Address,
  encodeLinkByName,
  encodeNewBridge,
  encodeSetLinkUp,
  NLM_F,
  NLMSG_ERROR,
  RTM,
} from './rtnetlink.js';
export type { LinkInfo } from './rtnetlink.js';
export { createNetlinkBridgeDriver } from './netlink-bridge-driver.js';
export type { BridgeAddress, BridgeDriver } from './netlink-bridge-driver.js';
export { iptablesRuleArgs, NFT_TABLE, renderNftRuleset } from './nft-ruleset.js';
export { createNatDriver } from './nat-driver.js';
export type { NatApplyArgs, NatApplyResult, NatBackend, NatDriver } from './nat-driver.js';
export { createCommandRunner } from './run-command.js';
export type { CommandResult, CommandRunner } from './run-command.js';
export { createProcIpForwarding } from './ip-forwarding.js';
export type { IpForwarding } from './ip-forwarding.js';
export { createJsonLogger, createMemoryLogger } from './logger.js';
export type { Clock, LogFields, Logger, LogLevel } from './logger.js';
export { readRevisionDir } from './read-revision-dir.js';
export { createCounters, renderMetrics } from './metrics.js';
export type { DaemonCounters } from './metrics.js';
export { toLeaseView, toPoolViews } from './views.js';
export type { LeaseView, PoolView } from './views.js';
export { applyHostNetwork } from './apply-host-network.js';
export type { HostNetworkResult } from './apply-host-network.js';
export { createDeviceDaemon } from './device-daemon.js';
export type { ApplyReport, DeviceDaemon, DeviceDaemonDeps, StartReport } from './device-daemon.js';
export { createHttpApi, statusOf } from './http-api.js';
export { createDeviceClient } from './device-client.js';
export type { DeviceClient } from './device-client.js';
export { checkRevision } from './check-revision.js';
export type { CheckReport } from './check-revision.js';
export { runDeviceServer } from './run-device-server.js';
export type { DeviceServer, DeviceServerOptions } from './run-device-server.js';
