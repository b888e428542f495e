// netledger-ipam: the CNI IPAM plugin (the plain ESM entry; see snapshot-main.ts for the other).
import { runMain } from './run-main.js';

runMain({ selfDir: import.meta.dirname });
