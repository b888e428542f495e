#!/usr/bin/env node
// Builds bin netledger-kube-controllers: dist/netledger-kube-controllers.mjs, one minified ESM file
// for a long-lived process, with no gRPC client (scripts/esbuild-node.mjs, bundleLongLivedApp).
// Usage: node build.mjs [bin-name]
import { bundleLongLivedApp } from '../../scripts/esbuild-node.mjs';

await bundleLongLivedApp(process.argv[2] ?? 'netledger-kube-controllers');
