export function addTo<K, V>(
  map: Map<K, Map<string, V>>,
  key: K,
  [id, value]: readonly [string, V],
): void {
  let inner = map.get(key);
  if (!inner) map.set(key, (inner = new Map<string, V>()));
  inner.set(id, value);
}

export function removeFrom<K, V>(map: Map<K, Map<string, V>>, key: K, id: string): void {
  const inner = map.get(key);
  if (!inner) return;
  inner.delete(id);
  // An empty inner map is removed at once: left behind, it is Calico's v3.32 memory-leak class.
  if (inner.size === 0) map.delete(key);
}

export function addToSet<K>(map: Map<K, Set<string>>, key: K, value: string): void {
  let inner = map.get(key);
  if (!inner) map.set(key, (inner = new Set()));
  inner.add(value);
}

export function removeFromSet<K>(map: Map<K, Set<string>>, key: K, value: string): void {
  const inner = map.get(key);
  if (!inner) return;
  inner.delete(value);
  if (inner.size === 0) map.delete(key);
}
