// netledger-ipam's Node.js side (the fallback's entry): its directory holds the fallback's files.
import { runMain } from './run-main.js';

runMain({ bundleDir: import.meta.dirname });
