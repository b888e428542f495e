#!/usr/bin/env node
// Builds bin netledger-node: dist/netledger-node.mjs, one minified ESM file for a long-lived
// process (no start-up snapshot), with no gRPC client (scripts/esbuild-node.mjs,
// bundleLongLivedApp).
import { bundleLongLivedApp } from '../../scripts/esbuild-node.mjs';

await bundleLongLivedApp('netledger-node');
