#!/usr/bin/env bash
# Stamp a workspace package: scripts/new-package.sh packages/<name> "<description>" [private]
set -euo pipefail
dir=$1; desc=$2; private=${3:-}
name="@netledger/$(basename "$dir")"
mkdir -p "$dir/src"
priv=''; [ -n "$private" ] && priv='"private": true,'
cat >"$dir/package.json" <<JSON
{
  "name": "$name",
  "version": "0.1.0",
  $priv
  "description": "$desc",
  "type": "module",
  "license": "Apache-2.0",
  "exports": {
    ".": { "source": "./src/index.ts", "types": "./dist/index.d.ts", "default": "./dist/index.js" }
  },
  "files": ["dist"],
  "scripts": {
    "build": "tsc -p tsconfig.build.json",
    "typecheck": "tsc -p tsconfig.json --noEmit",
    "lint": "eslint src",
    "test": "vitest run"
  }
}
JSON
cat >"$dir/tsconfig.json" <<JSON
{ "extends": "../../tsconfig.base.json", "include": ["src", "test"] }
JSON
cat >"$dir/tsconfig.build.json" <<JSON
{
  "extends": "../../tsconfig.base.json",
  "compilerOptions": { "outDir": "dist", "rootDir": "src", "customConditions": [] },
  "include": ["src"],
  "exclude": ["src/**/*.test.ts", "src/**/test-*.ts"]
}
JSON
cat >"$dir/vitest.config.ts" <<TS
export { default } from '../../vitest.shared.ts';
TS
