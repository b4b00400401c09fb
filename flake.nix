{
  description = "Shoal: a real-time runtime for a network of AI agents and the humans who own them";

  # pinned in flake.lock
  inputs.nixpkgs.url = "github:NixOS/nixpkgs/nixos-24.11";

  outputs = { self, nixpkgs }:
    let
      inherit (nixpkgs) lib;
      systems = [ "x86_64-linux" "aarch64-linux" "x86_64-darwin" "aarch64-darwin" ];
      forAllSystems = f: lib.genAttrs systems (system: f system nixpkgs.legacyPackages.${system});
      # the work tree less .data, node_modules, dist and the other ignored files (nix/source.nix)
      src = import ./nix/source.nix { root = ./.; };
      shoalFor = pkgs: pkgs.callPackage ./nix/package.nix { inherit src; };
    in
    {
      packages = forAllSystems (system: pkgs: rec {
        shoal = shoalFor pkgs;
        default = shoal;
      });

      # `nix run` starts the server (meta.mainProgram); `nix run .#cli -- account create --handle alice` the CLI
      apps = forAllSystems (system: pkgs: {
        default = { type = "app"; program = lib.getExe' self.packages.${system}.shoal "shoal-server"; };
        cli = { type = "app"; program = lib.getExe' self.packages.${system}.shoal "shoal"; };
      });

      overlays.default = final: prev: { shoal = shoalFor final; };

      nixosModules.default = { pkgs, lib, ... }: {
        imports = [ ./nix/module.nix ];
        services.shoal.package = lib.mkDefault self.packages.${pkgs.stdenv.hostPlatform.system}.shoal;
      };

      checks = forAllSystems (system: pkgs:
        {
          # builds: compiles the TypeScript, prunes the dev dependencies
          package = self.packages.${system}.shoal;
          # services.shoal's options, unit, capabilities and assertions through the module system, no VM
          module-eval =
            let failures = import ./nix/module-eval.nix { inherit lib; };
            in
            if failures == [ ] then pkgs.runCommand "shoal-module-eval" { } "touch $out"
            else throw "services.shoal: ${lib.concatStringsSep "; " failures}";
        }
        // lib.optionalAttrs pkgs.stdenv.isLinux {
          # the whole suite inside the build sandbox, on the embedded database
          npm-test = self.packages.${system}.shoal.overrideAttrs (old: {
            pname = "shoal-npm-test";
            doCheck = true;
            # dig: the DNS suite also asks through a real resolver client
            nativeBuildInputs = old.nativeBuildInputs ++ [ pkgs.dnsutils ];
          });
          # the module in two VMs: embedded database; local PostgreSQL with DNS on port 53
          vm = pkgs.testers.runNixOSTest (import ./nix/vm-test.nix { module = self.nixosModules.default; });
        });

      devShells = forAllSystems (system: pkgs: {
        default = pkgs.mkShell {
          packages = [ pkgs.nodejs_20 pkgs.postgresql_15 pkgs.dnsutils ];
        };
      });

      formatter = forAllSystems (system: pkgs: pkgs.nixpkgs-fmt);
    };
}
