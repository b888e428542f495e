#!/usr/bin/env bash
# Real-host figures (root): the bundled daemon in a throwaway netns applies a revision with 4 pools
# (2 with NAT, real bridges over rtnetlink, real nft) and 250 containers, then starts all 250.
# Prints wall-clock times of the client verbs and the daemon's RSS. Run after `pnpm build`.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin="$here/dist/netledger-device.mjs"
tmp=$(mktemp -d)
ns="nl-test-bench-$RANDOM"
pid=''
cleanup() { [ -n "$pid" ] && kill "$pid" 2>/dev/null; ip netns del "$ns" 2>/dev/null || true; rm -rf "$tmp"; }
trap cleanup EXIT
mkdir -p "$tmp/state"
node -e '
const fs = require("fs"); const d = process.argv[1];
const pools = {};
for (let i = 0; i < 4; i++) pools["pool" + i] = { type: "bridge", bridge: "nlbr" + i, subnet: `10.${60 + i}.0.0/24`, gateway: `10.${60 + i}.0.1`, nat: i % 2 === 0 };
fs.writeFileSync(d + "/device.json", JSON.stringify({ network: { pools } }));
for (let i = 0; i < 250; i++) {
  const c = d + "/c" + String(i).padStart(3, "0"); fs.mkdirSync(c);
  fs.writeFileSync(c + "/run.json", JSON.stringify({ network: { mode: "pool", pool: "pool" + (i % 4), hostname: "c" + i } }));
  fs.writeFileSync(c + "/lxc.container.conf", "lxc.namespace.keep = user net ipc\n");
}' "$tmp/state"
ip netns add "$ns"
sock="$tmp/api.sock"
ip netns exec "$ns" node "$bin" serve --data-dir "$tmp/data" --socket "$sock" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
ms() { local s e; s=$(date +%s%N); "$@" >/dev/null; e=$(date +%s%N); echo $(( (e - s) / 1000000 )); }
first=$(ms node "$bin" apply --state "$tmp/state" --socket "$sock")
again=$(ms node "$bin" apply --state "$tmp/state" --socket "$sock")
s=$(date +%s%N)
node -e '
const http = require("http"); const sock = process.argv[1];
const post = (p) => new Promise((ok, no) => { const r = http.request({ socketPath: sock, method: "POST", path: p }, (res) => { res.resume(); res.on("end", () => res.statusCode === 200 ? ok() : no(new Error(p))); }); r.on("error", no); r.end(); });
(async () => { for (let i = 0; i < 250; i++) await post("/v1/containers/c" + String(i).padStart(3, "0") + "/start"); })().catch((e) => { console.error(e); process.exit(1); });
' "$sock"
e=$(date +%s%N)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
rules=$(ip netns exec "$ns" nft list table ip netledger | grep -c masquerade)
leases=$(node "$bin" leases --socket "$sock" | grep -c '"address"')
echo "{\"firstApplyMs\":$first,\"reApplyMs\":$again,\"start250Ms\":$(( (e - s) / 1000000 )),\"leases\":$leases,\"masqueradeRules\":$rules,\"daemonRssKiB\":$rss}"
