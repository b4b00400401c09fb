# services.shoal evaluated with nixpkgs' module system, without building anything: the options the module sets
# outside its own (systemd.services, services.postgresql, networking.firewall, assertions) are declared here as
# free-form, so only nixpkgs' `lib` is needed. Returns the failed expectations (an empty list when all hold).
#   nix-instantiate --eval --strict nix/module-eval.nix --arg lib 'import <nixpkgs/lib>'
# The flake's checks.module-eval runs it with the pinned nixpkgs' lib.
{ lib }:
let
  inherit (lib) mkOption types;
  freeform = mkOption {
    type = types.submodule { freeformType = types.attrsOf types.unspecified; };
    default = { };
  };
  nixosStub = {
    options = {
      assertions = mkOption { type = types.listOf types.unspecified; default = [ ]; };
      systemd.services = mkOption {
        type = types.attrsOf (types.submodule { freeformType = types.attrsOf types.unspecified; });
        default = { };
      };
      services.postgresql = freeform;
      networking.firewall = freeform;
    };
  };
  package = {
    type = "derivation";
    name = "shoal-0.1.0";
    outPath = "/nix/store/00000000000000000000000000000000-shoal-0.1.0";
    meta.mainProgram = "shoal-server";
  };
  eval = settings:
    (lib.evalModules {
      modules = [ ./module.nix nixosStub { services.shoal = { enable = true; inherit package; } // settings; } ];
      specialArgs.pkgs = { };
    }).config;
  failedAssertions = config: map (a: a.message) (lib.filter (a: !a.assertion) config.assertions);

  embedded = eval { };
  dns53 = eval { dnsPort = 53; publicUrl = "https://shoal.example.org"; };
  local = eval { database = { type = "postgresql"; createLocally = true; }; };
  remote = eval { database = { type = "postgresql"; url = "postgres://shoal@db.internal/shoal"; }; environmentFile = "/run/secrets/shoal.env"; environment.REGISTRATION = "closed"; };
  unit = config: config.systemd.services.shoal;
  sc = config: (unit config).serviceConfig;
  env = config: (unit config).environment;

  expect = name: actual: expected:
    lib.optional (actual != expected) "${name}: ${builtins.toJSON actual}, expected ${builtins.toJSON expected}";
in
lib.concatLists [
  # the embedded database, the defaults
  (expect "embedded: assertions" (failedAssertions embedded) [ ])
  (expect "embedded: ExecStart" (sc embedded).ExecStart "${package.outPath}/bin/shoal-server")
  (expect "embedded: environment" (env embedded) {
    HOST = "127.0.0.1";
    PORT = "8080";
    WALLET_PORT = "8081";
    DNS_HOST = "127.0.0.1";
    DNS_PORT = "5353";
    DNS_ZONE = "shoal.local";
    DATA_DIR = "/var/lib/shoal/data";
  })
  (expect "embedded: hardening"
    (lib.getAttrs [ "DynamicUser" "StateDirectory" "ProtectSystem" "NoNewPrivileges" ] (sc embedded))
    { DynamicUser = true; StateDirectory = "shoal"; ProtectSystem = "strict"; NoNewPrivileges = true; })
  (expect "embedded: no capability" (sc embedded).AmbientCapabilities [ ])
  (expect "embedded: empty bounding set" (sc embedded).CapabilityBoundingSet [ "" ])
  (expect "embedded: no postgresql" (embedded.services.postgresql.enable or false) false)
  (expect "embedded: no EnvironmentFile" (sc embedded).EnvironmentFile [ ])
  # DNS on port 53: the bind capability, and only it
  (expect "dns53: ambient" (sc dns53).AmbientCapabilities [ "CAP_NET_BIND_SERVICE" ])
  (expect "dns53: bounding set" (sc dns53).CapabilityBoundingSet [ "CAP_NET_BIND_SERVICE" ])
  (expect "dns53: DNS_PORT" (env dns53).DNS_PORT "53")
  (expect "dns53: PUBLIC_URL" (env dns53).PUBLIC_URL "https://shoal.example.org")
  # a local PostgreSQL created by the module
  (expect "local: assertions" (failedAssertions local) [ ])
  (expect "local: DATABASE_URL" (env local).DATABASE_URL "postgresql:///shoal?host=/run/postgresql&port=5432&user=shoal")
  (expect "local: no DATA_DIR" ((env local) ? DATA_DIR) false)
  (expect "local: postgresql" (lib.getAttrs [ "enable" "ensureDatabases" "ensureUsers" ] local.services.postgresql) {
    enable = true;
    ensureDatabases = [ "shoal" ];
    ensureUsers = [{ name = "shoal"; ensureDBOwnership = true; }];
  })
  (expect "local: after postgresql" (lib.elem "postgresql.service" (unit local).after) true)
  (expect "local: requires postgresql" (unit local).requires [ "postgresql.service" ])
  # a remote server, secrets in a file
  (expect "remote: assertions" (failedAssertions remote) [ ])
  (expect "remote: DATABASE_URL" (env remote).DATABASE_URL "postgres://shoal@db.internal/shoal")
  (expect "remote: EnvironmentFile" (sc remote).EnvironmentFile [ "/run/secrets/shoal.env" ])
  (expect "remote: extra variable" (env remote).REGISTRATION "closed")
  (expect "remote: no local postgresql" (remote.services.postgresql.enable or false) false)
  # what the assertions refuse
  (expect "dataDir outside /var/lib/shoal"
    (failedAssertions (eval { database.dataDir = "/srv/shoal"; }))
    [ "services.shoal.database.dataDir must lie under /var/lib/shoal (the only place the unit may write)" ])
  (expect "dataDir /var/lib/shoalx"
    (lib.length (failedAssertions (eval { database.dataDir = "/var/lib/shoalx"; }))) 1)
  (expect "postgresql with nothing to reach it"
    (failedAssertions (eval { database.type = "postgresql"; }))
    [ "services.shoal.database.type = \"postgresql\" needs url, createLocally, or DATABASE_URL in environmentFile" ])
  (expect "url and createLocally"
    (lib.length (failedAssertions (eval { database = { type = "postgresql"; url = "postgres://x/y"; createLocally = true; }; }))) 1)
  (expect "createLocally with another database name"
    (lib.length (failedAssertions (eval { database = { type = "postgresql"; createLocally = true; name = "other"; }; }))) 1)
]
