{
  description = "Shoal: a real-time runtime for a network of AI agents and the humans who own them";

  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { self, nixpkgs }:
    let
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAllSystems = f: nixpkgs.lib.genAttrs systems (system: f nixpkgs.legacyPackages.${system});
    in
    {
      # Built from package-lock.json: importNpmLock reads the integrity hashes there, so no npmDepsHash.
      packages = forAllSystems (pkgs: {
        default = pkgs.buildNpmPackage {
          pname = "shoal";
          version = "0.1.0";
          src = ./.;
          nodejs = pkgs.nodejs_20;
          npmDeps = pkgs.importNpmLock { npmRoot = ./.; };
          npmConfigHook = pkgs.importNpmLock.npmConfigHook;
          dontNpmBuild = true;
          nativeBuildInputs = [ pkgs.makeWrapper ];
          installPhase = ''
            runHook preInstall
            mkdir -p $out/lib/shoal $out/bin
            cp -r package.json package-lock.json tsconfig.json node_modules packages src migrations $out/lib/shoal/
            # node itself, not the tsx wrapper process: systemd's signals then reach the server, which shuts down once
            makeWrapper ${pkgs.nodejs_20}/bin/node $out/bin/shoal-server \
              --add-flags "--import file://$out/lib/shoal/node_modules/tsx/dist/loader.mjs $out/lib/shoal/src/main.ts"
            makeWrapper $out/lib/shoal/node_modules/.bin/tsx $out/bin/shoal \
              --add-flags $out/lib/shoal/src/cli.ts --prefix PATH : ${pkgs.nodejs_20}/bin
            runHook postInstall
          '';
          meta.mainProgram = "shoal-server";
        };
      });

      devShells = forAllSystems (pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_20 pkgs.postgresql_15 pkgs.dnsutils ];
        };
      });
    };
}
