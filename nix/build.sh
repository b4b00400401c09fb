# shellcheck shell=bash
# The package's configure, build and install steps. nix/package.nix sources this file in the build sandbox;
# nix/ci-check.sh runs the same functions outside Nix on tarballs taken from npm's cache, so these machines, which
# cannot build with Nix, still run the offline install, the build and the pruned install.

# $1: package-lock.json whose registry packages resolve to local files (nix/npm-lock.nix)
shoalConfigure() {
  cp --no-preserve=mode "$1" package-lock.json
  # `npm install`, not `npm ci`: the lock leaves out some other platforms' optional binaries, which `npm ci`
  # counts as out of sync (.ci/run falls back the same way); --no-save keeps the lock as it is. No install
  # scripts: the prebuilt binaries (esbuild, rollup, msgpackr) come as optional packages and load as they are.
  npm install --offline --ignore-scripts --no-save --no-audit --no-fund
  if command -v patchShebangs >/dev/null 2>&1; then patchShebangs node_modules; fi
}

shoalBuild() {
  npm run build
}

# $1: the output directory; the tree goes to $1/lib/shoal (node_modules beside dist/, as in the work tree)
shoalInstall() {
  npm prune --omit=dev --offline --no-save --no-audit --no-fund
  mkdir -p "$1/lib/shoal"
  cp -r package.json dist node_modules "$1/lib/shoal/"
  # links into the source tree's packages/ (dist/ has its own, to the compiled packages); npm's record of the
  # install, which names the build-time tarballs; the dependencies' own command wrappers
  rm -rf "$1/lib/shoal/node_modules/@shoal" "$1/lib/shoal/node_modules/.package-lock.json" \
    "$1/lib/shoal/node_modules/.bin"
  # nothing installed may name a fetched tarball: that would keep every dev dependency in the closure
  if grep -rlE '/[a-z0-9]{32}-[^/"]*\.tgz' "$1/lib/shoal"; then
    echo "the files above refer to build-time npm tarballs" >&2
    return 1
  fi
}
