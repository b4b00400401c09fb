#!/usr/bin/env bash
# What CI can check of the Nix packaging on a machine that cannot fetch nixpkgs (.ci/run calls this with
# nix-instantiate installed). Nothing here builds with Nix: evaluating the flake's outputs needs nixpkgs.
#  1. every .nix file parses;
#  2. flake.lock is a version 7 lock whose root input nixpkgs is pinned to a GitHub revision and narHash, and
#     Nix itself reads it as the lock of flake.nix (`nix flake metadata --offline` would re-lock, and so fail
#     here, if the lock did not match the flake's inputs);
#  3. the source filter (nix/source.nix, builtins only) evaluates, and lets through exactly the files git does
#     not ignore, less the Nix and CI files;
#  4. with NIXPKGS_LIB pointing at nixpkgs' lib (not fetchable here), the module evaluates as nix/module-eval.nix
#     expects;
#  5. the npm lock pinning (nix/npm-lock.nix, builtins only) evaluates, and with the tarballs npm's cache holds
#     standing in for the ones Nix would fetch, the package's own steps (nix/build.sh: offline install, build,
#     pruned install) run in a copy of the filtered tree with an empty npm cache, and the installed tree serves
#     /health with plain node, stops with exit 0 on SIGTERM, and its CLI works.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$PWD"
nixx() { nix --extra-experimental-features 'nix-command flakes' "$@"; }

echo "-- every .nix file parses"
count=0
while IFS= read -r -d '' file; do
  nix-instantiate --parse "$file" >/dev/null
  count=$((count + 1))
done < <(find . \( -name node_modules -o -name .git -o -name dist -o -name .data \) -prune -o -name '*.nix' -print0)
echo "$count .nix files parse"
[ "$count" -gt 0 ]

echo "-- flake.lock"
node -e '
  const fs = require("fs")
  const lock = JSON.parse(fs.readFileSync("flake.lock", "utf8"))
  const fail = (m) => { console.error(`flake.lock: ${m}`); process.exit(1) }
  if (lock.version !== 7) fail(`version ${lock.version}, not 7`)
  const root = lock.nodes?.[lock.root]
  if (!root) fail("no root node")
  const name = root.inputs?.nixpkgs
  const node = lock.nodes[name]
  if (!node) fail("the root node has no nixpkgs input")
  const { locked, original } = node
  if (locked?.type !== "github" || locked.owner !== "NixOS" || locked.repo !== "nixpkgs") fail("nixpkgs is not github:NixOS/nixpkgs")
  if (!/^[0-9a-f]{40}$/.test(locked.rev ?? "")) fail("no 40-hex rev")
  if (!/^sha256-[A-Za-z0-9+/]{43}=$/.test(locked.narHash ?? "")) fail("no sha256 narHash")
  if (!/^nixos-\d\d\.\d\d$/.test(original?.ref ?? "")) fail(`original ref ${original?.ref} is not a stable nixos-YY.MM branch`)
  const flake = fs.readFileSync("flake.nix", "utf8")
  if (!flake.includes(`github:NixOS/nixpkgs/${original.ref}"`)) fail(`flake.nix does not follow ${original.ref}`)
  const date = new Date(locked.lastModified * 1000).toISOString().slice(0, 10)
  console.log(`flake.lock pins nixpkgs ${original.ref} at ${locked.rev} (${date}), ${locked.narHash}`)
'
if git ls-files --error-unmatch flake.lock >/dev/null 2>&1; then
  # a flake in a git tree sees only tracked files, so this reads the committed lock
  rev="$(nixx flake metadata --offline --json . | node -e '
    const m = JSON.parse(require("fs").readFileSync(0, "utf8"))
    const root = m.locks.nodes[m.locks.root]
    console.log(m.locks.nodes[root.inputs.nixpkgs].locked.rev)
  ')"
  echo "nix flake metadata --offline: nixpkgs locked at $rev, no re-lock needed"
else
  echo "NOTICE: flake.lock is not tracked by git yet; nix flake metadata skipped"
fi

echo "-- source filter (nix/source.nix)"
src="$(nix-instantiate --eval --read-write-mode --json -E 'toString (import ./nix/source.nix { root = ./.; })' | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8"))')"
# tracked files and untracked ones git does not ignore, present in the work tree, less what the filter drops on purpose
expected="$(git ls-files -z --cached --others --exclude-standard | xargs -0 -I{} sh -c 'test -e "{}" && echo "{}"' |
  grep -Ev '^(nix/|flake\.nix$|flake\.lock$|\.ci/)' | sort)"
actual="$(cd "$src" && find . \( -type f -o -type l \) | sed 's|^\./||' | sort)"
if [ "$expected" != "$actual" ]; then
  echo "the filtered source differs from what git keeps (< git only, > filter only):"
  diff <(echo "$expected") <(echo "$actual") || true
  exit 1
fi
echo "$(echo "$actual" | wc -l) files, the same as git's (no node_modules, .data, dist): $src"

echo "-- the NixOS module through the module system (nix/module-eval.nix)"
# needs nixpkgs' lib, which these machines cannot fetch: NIXPKGS_LIB=/path/to/nixpkgs/lib runs it
if [ -n "${NIXPKGS_LIB:-}" ]; then
  failures="$(nix-instantiate --eval --strict --json nix/module-eval.nix --arg lib "import $NIXPKGS_LIB")"
  [ "$failures" = "[]" ] || { echo "services.shoal: $failures"; exit 1; }
  echo "services.shoal evaluates as expected with the lib at $NIXPKGS_LIB"
else
  echo "NOTICE: NIXPKGS_LIB unset; the module was not evaluated (nix flake check does, as checks.module-eval)"
fi

echo "-- npm lock pinning (nix/npm-lock.nix) and the package's steps outside Nix"
work="$(mktemp -d)"
server_pid=""
cleanup() {
  if [ -n "$server_pid" ]; then kill -9 "$server_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
mkdir -p "$work/tarballs"
nix-instantiate --eval --strict --json --arg dir "\"$work/tarballs\"" --expr '
  { dir }: import ./nix/npm-lock.nix {
    lockFile = ./package-lock.json;
    fetch = { name, url, hash }: "${dir}/${name}";
  }' >"$work/package-lock.json"
nix-instantiate --eval --strict --json --expr '
  let lock = import ./nix/npm-lock.nix { lockFile = ./package-lock.json; fetch = { name, url, hash }: url; };
  in builtins.mapAttrs (k: v: if v ? resolved then builtins.substring 5 (-1) v.resolved else null) lock.packages' >"$work/urls.json"
# tarballs from npm's cache by their integrity: what Nix's fetchurl would have put in the store
npm_dir="$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")"
CACACHE="$npm_dir/node_modules/cacache" CACHE="$(npm config get cache 2>/dev/null)/_cacache" node -e '
  const fs = require("fs")
  const cacache = require(process.env.CACACHE)
  const [pinnedFile, urlsFile, original] = process.argv.slice(1)
  const pinned = JSON.parse(fs.readFileSync(pinnedFile, "utf8")).packages
  const urls = JSON.parse(fs.readFileSync(urlsFile, "utf8"))
  const lock = JSON.parse(fs.readFileSync(original, "utf8")).packages
  const fail = (m) => { console.error(m); process.exit(1) }
  // the registry addresses, as `npm view <name>@<version> dist.tarball` gives them
  const v = (k) => lock[k].version
  const want = {
    "node_modules/effect": `https://registry.npmjs.org/effect/-/effect-${v("node_modules/effect")}.tgz`,
    "node_modules/@effect/platform": `https://registry.npmjs.org/@effect/platform/-/platform-${v("node_modules/@effect/platform")}.tgz`
  }
  for (const [k, url] of Object.entries(want)) if (urls[k] !== url) fail(`${k}: ${urls[k]}, not ${url}`)
  ;(async () => {
    let have = 0, absent = 0
    for (const [k, entry] of Object.entries(pinned)) {
      if (!k.startsWith("node_modules/") || entry.link) continue
      if (!entry.resolved?.startsWith("file:")) fail(`${k} is not pinned to a file`)
      try {
        fs.writeFileSync(entry.resolved.slice(5), await cacache.get.byDigest(process.env.CACHE, entry.integrity))
        have++
      } catch {
        absent++ // another platform'"'"'s optional binary this machine never installed
      }
    }
    console.log(`${have} tarballs from npm'"'"'s cache, ${absent} not there (other platforms'"'"' optional packages)`)
  })()
' "$work/package-lock.json" "$work/urls.json" package-lock.json

cp -r "$src" "$work/src"
chmod -R u+w "$work/src"
(
  cd "$work/src"
  # an empty cache: the install may use nothing but the pinned files
  export HOME="$work/home" npm_config_cache="$work/npm-cache" npm_config_update_notifier=false npm_config_loglevel=error
  # shellcheck source=nix/build.sh
  source "$root/nix/build.sh"
  shoalConfigure "$work/package-lock.json"
  shoalBuild >/dev/null
  shoalInstall "$work/out"
)
echo "installed: $(du -sh "$work/out/lib/shoal/node_modules" | cut -f1) of production dependencies"

ports="$(node -e '
  const net = require("net")
  const free = () => new Promise((r) => { const s = net.createServer().listen(0, "127.0.0.1", () => { const p = s.address().port; s.close(() => r(p)) }) })
  Promise.all([free(), free()]).then((ps) => console.log(ps.join(" ")))
')"
read -r port wallet_port <<<"$ports"
(cd / && NODE_OPTIONS= DATA_DIR="$work/data" HOST=127.0.0.1 PORT="$port" WALLET_PORT="$wallet_port" DNS_PORT=0 \
  exec node "$work/out/lib/shoal/dist/src/main.js" >"$work/server.log" 2>&1) &
server_pid=$!
healthy=""
for _ in $(seq 1 120); do
  if curl -sf "http://127.0.0.1:$port/health" >/dev/null 2>&1; then healthy=yes && break; fi
  kill -0 "$server_pid" 2>/dev/null || break
  sleep 1
done
[ -n "$healthy" ] || { cat "$work/server.log"; echo "the installed server did not become healthy"; exit 1; }
kill -TERM "$server_pid"
status=0
wait "$server_pid" || status=$?
server_pid=""
[ "$status" = 0 ] || { cat "$work/server.log"; echo "the installed server exited $status after SIGTERM"; exit 1; }
(cd / && NODE_OPTIONS= DATA_DIR="$work/data" node "$work/out/lib/shoal/dist/src/cli.js" account create --handle nixci) |
  grep -q '"handle": "nixci"'
echo "the installed tree (plain node, no dev dependencies) served /health, exited 0 on SIGTERM; its CLI created an account"
