// Runs every benchmark of this package, one after another.
await import('./ipam-core-bench.js');
await import('./cni-bench.js');
await import('./cni-k8s-bench.js');
