import { defineConfig, mergeConfig } from 'vitest/config';
import shared from '../../vitest.shared.ts';

// One file at a time: each starts 16 processes and a store, and the failover and fault tests
// measure call timings that a second file's load would distort.
export default mergeConfig(shared, defineConfig({ test: { fileParallelism: false } }));
