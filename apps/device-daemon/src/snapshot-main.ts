// The start-up snapshot's entry: build.mjs runs its CommonJS bundle under `node --build-snapshot`,
// so the client is compiled and evaluated (and its verbs warmed up) once at build time; each
// invocation deserializes the heap and runs the client verb its argv names.
import { startupSnapshot } from 'node:v8';
import { warmUp } from '@netledger/device-daemon/warm-up';
import { runClientMain } from './client-main.js';

warmUp().then(
  () => startupSnapshot.setDeserializeMainFunction(() => runClientMain(process.argv.slice(2))),
  (e: unknown) => {
    // No snapshot rather than one that skips the warm-up: build.mjs fails on this exit status.
    console.error(e);
    process.exit(1);
  },
);
