/** Splits a stream of JSON objects (`{...}{...}` or one per line) into parsed values. */
export interface JsonObjectSplitter {
  /**
   * Takes the next piece of text, cut anywhere, and returns every object it completes, in order.
   * Throws on text between objects that is not whitespace, or on an object that does not parse.
   */
  push(text: string): unknown[];
  /** True while part of an object has arrived but not its end. */
  readonly partial: boolean;
}

/**
 * Creates a splitter for a gateway's streaming answer. It tracks brace depth outside strings, so
 * an object may be cut at any character (inside a string, after a backslash) and objects need no
 * separator; each character is scanned once however the text is cut.
 */
export function createJsonObjectSplitter(): JsonObjectSplitter {
  let buffer = '';
  let scanned = 0;
  let depth = 0;
  let inString = false;
  let escaped = false;

  return {
    push(text) {
      buffer += text;
      const objects: unknown[] = [];
      let start = 0;
      for (let i = scanned; i < buffer.length; i++) {
        const c = buffer[i];
        if (inString) {
          if (escaped) escaped = false;
          else if (c === '\\') escaped = true;
          else if (c === '"') inString = false;
        } else if (c === '{') {
          if (depth === 0) start = i;
          depth++;
        } else if (depth === 0) {
          if (c !== ' ' && c !== '\n' && c !== '\r' && c !== '\t') {
            throw new Error(`unexpected ${JSON.stringify(c)} between JSON objects`);
          }
        } else if (c === '"') {
          inString = true;
        } else if (c === '}') {
          depth--;
          if (depth === 0) {
            objects.push(JSON.parse(buffer.slice(start, i + 1)));
            start = i + 1;
          }
        }
      }
      // Keep only the unfinished object; whitespace after the last one is dropped.
      buffer = depth === 0 ? '' : buffer.slice(start);
      scanned = buffer.length;
      return objects;
    },
    get partial() {
      return depth > 0;
    },
  };
}
