/**
 * The V8 flags the start-up snapshot is built and run with; a blob only loads with the flags it
 * was built with. The same list as `snapshotFlags` in package.json, which build.mjs and
 * scripts/link-bins.mjs read (a test keeps the two equal). See docs/cni.md, "Start-up cost".
 */
export const SNAPSHOT_FLAGS: readonly string[] = ['--no-rehash-snapshot', '--no-sparkplug'];
