// The web-platform globals ipam-core uses, which every JavaScript runtime provides. The build
// compiles without Node's types (`types: []` in tsconfig.build.json) so that nothing else reaches
// in: ipam-core does no I/O. Only the members used are declared.

declare function setTimeout(callback: () => void, ms: number): unknown;
declare function clearTimeout(handle: unknown): void;

interface AbortSignal {
  readonly aborted: boolean;
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  removeEventListener(type: 'abort', listener: () => void): void;
}

declare class TextEncoder {
  encode(input?: string): Uint8Array;
}
