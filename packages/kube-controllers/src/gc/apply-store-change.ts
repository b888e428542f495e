import type { KVPair, Kind } from '@netledger/ipam-core';
import type { StoreChange } from '../manager/store-reflector.js';
import { GcState } from './gc-state.js';

/** The kinds the GC follows in the datastore (Calico's syncer feed, plus handles). */
export const GC_STORE_KINDS = [
  'IPPool',
  'IPReservation',
  'Node',
  'IPAMConfig',
  'ClusterInformation',
  'IPAMHandle',
  'IPAMBlock',
] as const satisfies readonly Kind[];

/** Applies one datastore change to the GC state. Kinds the GC does not follow are ignored. */
export function applyStoreChange(state: GcState, change: StoreChange): void {
  if (change.type === 'delete') {
    const key = change.key;
    switch (key.kind) {
      case 'IPAMBlock':
        return state.forgetBlock(key.cidr);
      case 'IPPool':
        return state.deletePool(key.name);
      case 'IPReservation':
        return state.deleteReservation(key.name);
      case 'Node':
        return state.deleteCalicoNode(key.name);
      case 'IPAMHandle':
        return state.deleteHandle(key.handleId);
      case 'IPAMConfig':
        state.ipCooldownSeconds = 0;
        return;
      case 'ClusterInformation':
        if (key.name === 'default') state.datastoreReady = true;
        return;
      default:
        return;
    }
  }
  const kv = change.kv;
  switch (kv.key.kind) {
    case 'IPAMBlock':
      return state.applyBlock(kv as KVPair<'IPAMBlock'>);
    case 'IPPool':
      return state.applyPool((kv as KVPair<'IPPool'>).value);
    case 'IPReservation':
      return state.applyReservation((kv as KVPair<'IPReservation'>).value);
    case 'Node':
      return state.applyCalicoNode((kv as KVPair<'Node'>).value);
    case 'IPAMHandle':
      return state.applyHandle(kv as KVPair<'IPAMHandle'>);
    case 'IPAMConfig':
      state.ipCooldownSeconds = (kv as KVPair<'IPAMConfig'>).value.ipCooldownSeconds;
      return;
    case 'ClusterInformation':
      if (kv.key.name === 'default') {
        state.datastoreReady =
          (kv as KVPair<'ClusterInformation'>).value.spec.datastoreReady !== false;
      }
      return;
    default:
      return;
  }
}

/**
 * A fresh state built from lists of the store (any order of kinds: pools are applied first so
 * blocks are attributed once). Used to check the live state against a rebuild.
 */
export function buildGcState(items: Iterable<KVPair>): GcState {
  const state = new GcState();
  const rest: KVPair[] = [];
  for (const kv of items) {
    if (kv.key.kind === 'IPPool') applyStoreChange(state, { type: 'put', kv });
    else rest.push(kv);
  }
  for (const kv of rest) applyStoreChange(state, { type: 'put', kv });
  return state;
}
