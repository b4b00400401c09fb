# The service, compiled: `npm run build` turns the TypeScript into dist/, dev dependencies are pruned, and
# `shoal-server` / `shoal` run dist/src/{main,cli}.js with plain node (no TypeScript loader at run time).
{ lib
, stdenv
, nodejs_20
, makeWrapper
, fetchurl
, writeText
, src # the filtered work tree (nix/source.nix)
}:
let
  nodejs = nodejs_20;
  packageJson = builtins.fromJSON (builtins.readFile (src + "/package.json"));
  # every registry package of package-lock.json fetched by Nix (from its integrity hash), for an offline install
  pinnedLock = writeText "package-lock.json" (builtins.toJSON (import ./npm-lock.nix {
    lockFile = src + "/package-lock.json";
    fetch = { name, url, hash }: fetchurl { inherit name url hash; };
  }));
in
stdenv.mkDerivation {
  pname = "shoal";
  inherit (packageJson) version;
  inherit src;

  nativeBuildInputs = [ nodejs makeWrapper ];

  # npm never reaches a network: every package is a file in the store
  env = {
    npm_config_offline = "true";
    npm_config_audit = "false";
    npm_config_fund = "false";
    npm_config_update_notifier = "false";
    npm_config_loglevel = "error";
  };

  configurePhase = ''
    runHook preConfigure
    export HOME="$TMPDIR" npm_config_cache="$TMPDIR/npm-cache"
    source ${./build.sh}
    shoalConfigure ${pinnedLock}
    runHook postConfigure
  '';

  buildPhase = ''
    runHook preBuild
    source ${./build.sh}
    shoalBuild
    runHook postBuild
  '';

  # the suite (5 minutes, a gigabyte of memory for PGlite): the flake's checks.npm-test turns it on
  doCheck = false;
  checkPhase = ''
    runHook preCheck
    unset DATABASE_URL
    npm test
    runHook postCheck
  '';

  installPhase = ''
    runHook preInstall
    source ${./build.sh}
    shoalInstall $out
    # node itself runs the server, so systemd's signals reach it directly and it shuts down gracefully
    # with npm start's V8 flags (package.json): a 4 MB young generation, one V8 worker thread, an old generation
    # let grow by half its live size between full collections, no pretenuring
    makeWrapper ${nodejs}/bin/node $out/bin/shoal-server \
      --add-flags "--max-semi-space-size=4 --v8-pool-size=1 --heap-growing-percent=50 --no-allocation-site-pretenuring $out/lib/shoal/dist/src/main.js"
    makeWrapper ${nodejs}/bin/node $out/bin/shoal --add-flags $out/lib/shoal/dist/src/cli.js
    runHook postInstall
  '';

  passthru = { inherit nodejs pinnedLock; };

  meta = {
    description = "A real-time runtime for a network of AI agents and the humans who own them";
    mainProgram = "shoal-server";
    platforms = lib.platforms.linux ++ lib.platforms.darwin;
  };
}
