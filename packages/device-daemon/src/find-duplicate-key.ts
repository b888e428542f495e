// JSON.parse keeps the last of two equal keys in an object, silently: `{"subnet": A, "subnet": B}`
// reads as B. A strict reader refuses that instead, so this scan finds the first key that repeats.

/** Where a key repeats: the object's path (keys and array indexes) and the key. */
export interface DuplicateKey {
  readonly path: readonly (string | number)[];
  readonly key: string;
}

// Each container knows its parent and where it sits there; the path is built only for a finding,
// so a deep document costs linear memory.
interface Place {
  readonly parent: Frame | undefined;
  readonly at: string | number | undefined;
}
type Frame =
  | (Place & {
      readonly kind: 'object';
      readonly keys: Set<string>;
      key: string;
      expectKey: boolean;
    })
  | (Place & { readonly kind: 'array'; index: number });

function pathOf(frame: Frame): (string | number)[] {
  const path: (string | number)[] = [];
  for (let f: Frame | undefined = frame; f?.at !== undefined; f = f.parent) path.push(f.at);
  return path.reverse();
}

const WHITESPACE = new Set([' ', '\t', '\n', '\r']);
const SCALAR_END = new Set([',', ']', '}', ' ', '\t', '\n', '\r']);

/**
 * The first key that appears twice in one object of `text` (keys compared after unescaping, as
 * JSON.parse compares them), or `undefined`. `text` must be valid JSON (parse it first): the scan
 * does not validate. Iterative, so any nesting depth JSON.parse accepts is scanned.
 */
export function findDuplicateKey(text: string): DuplicateKey | undefined {
  const stack: Frame[] = [];
  const place = (): Place => {
    const top = stack.at(-1);
    return {
      parent: top,
      at: top === undefined ? undefined : top.kind === 'array' ? top.index : top.key,
    };
  };
  let i = 0;
  while (i < text.length) {
    const c = text[i] ?? '';
    if (WHITESPACE.has(c)) {
      i++;
      continue;
    }
    const top = stack.at(-1);
    if (c === '{') {
      stack.push({ ...place(), kind: 'object', keys: new Set(), key: '', expectKey: true });
      i++;
    } else if (c === '[') {
      stack.push({ ...place(), kind: 'array', index: 0 });
      i++;
    } else if (c === '}' || c === ']') {
      stack.pop();
      i++;
    } else if (c === ',') {
      if (top?.kind === 'array') top.index++;
      else if (top?.kind === 'object') top.expectKey = true;
      i++;
    } else if (c === ':') {
      if (top?.kind === 'object') top.expectKey = false;
      i++;
    } else if (c === '"') {
      const start = i++;
      while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
      i++;
      if (top?.kind === 'object' && top.expectKey) {
        const key = JSON.parse(text.slice(start, i)) as string;
        if (top.keys.has(key)) return { path: pathOf(top), key };
        top.keys.add(key);
        top.key = key;
      }
    } else {
      while (i < text.length && !SCALAR_END.has(text[i] ?? '')) i++;
    }
  }
  return undefined;
}
