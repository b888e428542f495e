// The start-up snapshot's entry: build.mjs runs its CommonJS bundle under
// `node --build-snapshot`, so the bundle is compiled and evaluated (and its command paths warmed
// up) once at build time; each invocation deserializes the heap and calls runMain.
import { startupSnapshot } from 'node:v8';
import { warmUpPlugin } from '@netledger/cni/warm-up';
import { createPluginOpener } from './open-datastore.js';
import { runMain } from './run-main.js';

// The warm-up's opener goes with it: runMain makes one per invocation.
warmUpPlugin(createPluginOpener()).then(
  () => startupSnapshot.setDeserializeMainFunction(runMain),
  (e: unknown) => {
    // No snapshot rather than one that skips the warm-up: build.mjs fails on this exit status.
    console.error(e);
    process.exit(1);
  },
);
