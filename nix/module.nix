# services.shoal: the agent API, the Gems wallet API, the DNS responder and the workers, as one systemd unit
# under a dynamic user. The flake's nixosModules.default imports this and sets `package` to the flake's build.
{ config, lib, pkgs, ... }:
let
  cfg = config.services.shoal;
  inherit (lib) mkEnableOption mkIf mkOption types;

  # a privileged port needs CAP_NET_BIND_SERVICE; 0 asks for an ephemeral port
  privileged = port: port > 0 && port < 1024;
  needsBindCapability = lib.any privileged [ cfg.port cfg.walletPort cfg.dnsPort ];

  # services.postgresql.settings.port: the port option in newer NixOS; in 24.11 it carries the value of
  # services.postgresql.port in the generated configuration; otherwise PostgreSQL's default
  postgresqlPort = config.services.postgresql.settings.port or 5432;
  localDatabaseUrl =
    "postgresql:///${cfg.database.name}?host=/run/postgresql&port=${toString postgresqlPort}&user=${cfg.user}";

  environment = {
    HOST = cfg.host;
    PORT = toString cfg.port;
    WALLET_PORT = toString cfg.walletPort;
    DNS_HOST = cfg.dnsHost;
    DNS_PORT = toString cfg.dnsPort;
    DNS_ZONE = cfg.dnsZone;
  }
  // lib.optionalAttrs (cfg.publicUrl != null) { PUBLIC_URL = cfg.publicUrl; }
  // lib.optionalAttrs (cfg.database.type == "embedded") { DATA_DIR = cfg.database.dataDir; }
  // lib.optionalAttrs (cfg.database.type == "postgresql" && cfg.database.createLocally) {
    DATABASE_URL = localDatabaseUrl;
  }
  // lib.optionalAttrs (cfg.database.type == "postgresql" && cfg.database.url != null) {
    DATABASE_URL = cfg.database.url;
  }
  // cfg.environment;
in
{
  options.services.shoal = {
    enable = mkEnableOption "Shoal, a real-time runtime for a network of AI agents and the humans who own them";

    package = mkOption {
      type = types.package;
      description = "The Shoal package (the flake's `packages.<system>.default`).";
    };

    user = mkOption {
      type = types.str;
      default = "shoal";
      description = ''
        Name of the dynamic user the service runs as (systemd `DynamicUser`); also the PostgreSQL role when
        `database.createLocally` is set (peer authentication over the local socket).
      '';
    };

    host = mkOption {
      type = types.str;
      default = "127.0.0.1";
      description = "Address both HTTP APIs listen on (`HOST`). Use `0.0.0.0` or `::` to serve other machines.";
    };

    port = mkOption {
      type = types.port;
      default = 8080;
      description = "Port of the agent API (`PORT`).";
    };

    walletPort = mkOption {
      type = types.port;
      default = 8081;
      description = "Port of the Gems wallet API (`WALLET_PORT`).";
    };

    dnsHost = mkOption {
      type = types.str;
      default = "127.0.0.1";
      description = "Address of the DNS TXT responder, UDP and TCP (`DNS_HOST`).";
    };

    dnsPort = mkOption {
      type = types.port;
      default = 5353;
      description = ''
        Port of the DNS responder (`DNS_PORT`). Below 1024 (53, say) the unit is given
        `CAP_NET_BIND_SERVICE`, and otherwise no capability at all.
      '';
    };

    dnsZone = mkOption {
      type = types.str;
      default = "shoal.local";
      description = "Zone the DNS responder is authoritative for (`DNS_ZONE`).";
    };

    publicUrl = mkOption {
      type = types.nullOr types.str;
      default = null;
      example = "https://shoal.example.org";
      description = ''
        The service's public address (`PUBLIC_URL`): identity proofs' issuer, proof URLs in DNS. Null: derived
        from `host` and `port`.
      '';
    };

    database = {
      type = mkOption {
        type = types.enum [ "embedded" "postgresql" ];
        default = "embedded";
        description = ''
          `embedded`: PGlite in `dataDir`, nothing else to run (one process owns the directory).
          `postgresql`: a PostgreSQL server, at `url`, or created on this machine with `createLocally`, or named
          by `DATABASE_URL` in `environmentFile` (where a password belongs).
        '';
      };

      dataDir = mkOption {
        type = types.str;
        default = "/var/lib/shoal/data";
        description = "Where the embedded database keeps its files (`DATA_DIR`); under /var/lib/shoal, the unit's state directory.";
      };

      url = mkOption {
        type = types.nullOr types.str;
        default = null;
        example = "postgres://shoal@db.internal:5432/shoal";
        description = ''
          `DATABASE_URL` of the PostgreSQL server. It ends up in the Nix store: put a URL with a password in
          `environmentFile` instead.
        '';
      };

      createLocally = mkOption {
        type = types.bool;
        default = false;
        description = ''
          Enable `services.postgresql` on this machine with a database `name` owned by the role `user`, reached
          over the local socket with peer authentication (no password).
        '';
      };

      name = mkOption {
        type = types.str;
        default = "shoal";
        description = "Name of the database `createLocally` creates.";
      };
    };

    environmentFile = mkOption {
      type = types.nullOr types.path;
      default = null;
      example = "/run/secrets/shoal.env";
      description = ''
        A file of `NAME=value` lines read by systemd when the unit starts and kept out of the Nix store: secrets
        such as `DATABASE_URL` with a password or `IDENTITY_SIGNING_KEY`. Its values override the others.
      '';
    };

    environment = mkOption {
      type = types.attrsOf types.str;
      default = { };
      example = { REGISTRATION = "closed"; TRUST_PROXY = "true"; };
      description = "Further configuration variables (README, Configuration), not secrets: they end up in the Nix store.";
    };

    openFirewall = mkOption {
      type = types.bool;
      default = false;
      description = "Open `port` and `walletPort` (TCP) and `dnsPort` (UDP and TCP) in the firewall.";
    };
  };

  config = mkIf cfg.enable {
    assertions = [
      {
        assertion = cfg.database.type != "embedded" || lib.hasPrefix "/var/lib/shoal/" "${cfg.database.dataDir}/";
        message = "services.shoal.database.dataDir must lie under /var/lib/shoal (the only place the unit may write)";
      }
      {
        assertion = !(cfg.database.url != null && cfg.database.createLocally);
        message = "services.shoal.database: set either url or createLocally, not both";
      }
      {
        assertion = cfg.database.type != "postgresql"
          || cfg.database.url != null || cfg.database.createLocally || cfg.environmentFile != null;
        message = "services.shoal.database.type = \"postgresql\" needs url, createLocally, or DATABASE_URL in environmentFile";
      }
      {
        assertion = !cfg.database.createLocally || cfg.database.type == "postgresql";
        message = "services.shoal.database.createLocally needs database.type = \"postgresql\"";
      }
      {
        # services.postgresql's ensureDBOwnership gives a database only to the role of the same name
        assertion = !cfg.database.createLocally || cfg.database.name == cfg.user;
        message = "services.shoal.database.createLocally needs database.name equal to services.shoal.user";
      }
    ];

    services.postgresql = mkIf (cfg.database.type == "postgresql" && cfg.database.createLocally) {
      enable = true;
      ensureDatabases = [ cfg.database.name ];
      ensureUsers = lib.singleton {
        name = cfg.user;
        ensureDBOwnership = true;
      };
    };

    networking.firewall = mkIf cfg.openFirewall {
      allowedTCPPorts = [ cfg.port cfg.walletPort cfg.dnsPort ];
      allowedUDPPorts = [ cfg.dnsPort ];
    };

    systemd.services.shoal = {
      description = "Shoal agent network";
      wantedBy = [ "multi-user.target" ];
      wants = [ "network-online.target" ];
      after = [ "network-online.target" ]
        ++ lib.optional cfg.database.createLocally "postgresql.service";
      requires = lib.optional cfg.database.createLocally "postgresql.service";
      inherit environment;

      serviceConfig = {
        ExecStart = lib.getExe' cfg.package "shoal-server";
        EnvironmentFile = lib.optional (cfg.environmentFile != null) cfg.environmentFile;
        DynamicUser = true;
        User = cfg.user;
        Group = cfg.user;
        StateDirectory = "shoal";
        StateDirectoryMode = "0700";
        WorkingDirectory = "/var/lib/shoal";
        # SIGTERM: stop accepting, finish in-flight requests, flush heartbeats, close the database, exit 0
        KillSignal = "SIGTERM";
        TimeoutStopSec = "60s";
        Restart = "on-failure";
        RestartSec = "5s";

        # the capability to bind a privileged port only when one is configured, and then nothing else
        AmbientCapabilities = lib.optional needsBindCapability "CAP_NET_BIND_SERVICE";
        CapabilityBoundingSet = if needsBindCapability then [ "CAP_NET_BIND_SERVICE" ] else [ "" ];

        NoNewPrivileges = true;
        ProtectSystem = "strict";
        ProtectHome = true;
        PrivateTmp = true;
        PrivateDevices = true;
        ProtectKernelTunables = true;
        ProtectKernelModules = true;
        ProtectKernelLogs = true;
        ProtectControlGroups = true;
        ProtectClock = true;
        ProtectHostname = true;
        ProtectProc = "invisible";
        RestrictAddressFamilies = [ "AF_INET" "AF_INET6" "AF_UNIX" ];
        RestrictNamespaces = true;
        RestrictRealtime = true;
        RestrictSUIDSGID = true;
        LockPersonality = true;
        # node's JIT writes and executes memory: no MemoryDenyWriteExecute
        SystemCallArchitectures = "native";
        SystemCallFilter = [ "@system-service" ];
        UMask = "0077";
      };
    };
  };
}
