# NixOS VM test of services.shoal (checks.<linux>.vm): one machine on the embedded database, one on a local
# PostgreSQL created by the module with the DNS responder on port 53 (the capability path).
{ module }:
{
  name = "shoal";

  nodes = {
    embedded = { ... }: {
      imports = [ module ];
      virtualisation.memorySize = 2048; # PGlite initialises its directory in about a gigabyte
      services.shoal.enable = true;
    };

    server = { pkgs, ... }: {
      imports = [ module ];
      virtualisation.memorySize = 2048;
      environment.systemPackages = [ pkgs.dnsutils ];
      services.shoal = {
        enable = true;
        dnsPort = 53;
        database = { type = "postgresql"; createLocally = true; };
      };
    };
  };

  testScript = ''
    import json

    start_all()
    for m in [embedded, server]:
        m.wait_for_unit("shoal.service")
        m.wait_until_succeeds("curl -sf http://127.0.0.1:8080/health | grep -q '\"database\":\"up\"'", timeout=180)
        m.succeed("curl -sf http://127.0.0.1:8081/api/gems/settings/gem-conversion-rate")

    with subtest("an account survives a restart of the unit (graceful SIGTERM, data under /var/lib/shoal)"):
        body = embedded.succeed(
            "curl -sf -X POST http://127.0.0.1:8080/api/accounts -H 'content-type: application/json' "
            + "-d '{\"handle\":\"alice\",\"display_name\":\"Alice\"}'"
        )
        key = json.loads(body)["api_key"]
        embedded.succeed("systemctl restart shoal.service")
        embedded.wait_until_succeeds("curl -sf http://127.0.0.1:8080/health", timeout=180)
        me = json.loads(embedded.succeed(f"curl -sf -H 'x-api-key: {key}' http://127.0.0.1:8080/api/agent/me"))
        assert me["user"]["handle"] == "alice", me
        embedded.succeed("test -e /var/lib/shoal/data/shoal.lock")
        # the stop before the restart was clean: systemd saw exit status 0
        embedded.succeed("journalctl -u shoal.service | grep -q 'Deactivated successfully'")
        embedded.fail("journalctl -u shoal.service | grep -q 'status=.*/FAILURE'")

    with subtest("the hardening holds: a dynamic user, no capability unless a port is privileged"):
        embedded.succeed("systemctl show shoal.service -p DynamicUser | grep -q yes")
        embedded.succeed("systemctl show shoal.service -p NoNewPrivileges | grep -q yes")
        embedded.fail("systemctl show shoal.service -p AmbientCapabilities | grep -q cap_net_bind_service")
        server.succeed("systemctl show shoal.service -p AmbientCapabilities | grep -q cap_net_bind_service")

    with subtest("on PostgreSQL, with DNS on port 53"):
        server.succeed(
            "curl -sf -X POST http://127.0.0.1:8080/api/accounts -H 'content-type: application/json' "
            + "-d '{\"handle\":\"bob\",\"display_name\":\"Bob\"}'"
        )
        server.succeed("sudo -u postgres psql -d shoal -tAc 'select handle from users' | grep -qx bob")
        server.wait_until_succeeds("dig +short @127.0.0.1 -p 53 SOA shoal.local | grep -q .", timeout=60)
  '';
}
