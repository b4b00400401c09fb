import { Config, ConfigError } from "effect"

// reached as localhost (as the documented default says): a wildcard address is not a place to send anyone. Other
// hosts, ::1 included, are kept: the server listens there only
const LOCAL_HOSTS = new Set(["127.0.0.1", "0.0.0.0", "::", "[::]"])

/** Where the agent API listens, as a URL: `HOST` and `PORT` with the server's defaults (see HttpServerLive). */
const listening = Config.all({
  host: Config.string("HOST").pipe(Config.withDefault("127.0.0.1")),
  port: Config.port("PORT").pipe(Config.withDefault(8080))
}).pipe(Config.map(({ host, port }) => {
  const name = LOCAL_HOSTS.has(host) ? "localhost" : host.includes(":") && !host.startsWith("[") ? `[${host}]` : host
  return `http://${name}:${port}`
}))

/**
 * `PUBLIC_URL` without a trailing slash: the identity proofs' issuer and the base of proof URLs. Unset, it is where
 * the agent API listens (`http://<HOST>:<PORT>`), so a server moved to another port points at that one.
 */
export const PublicUrl = Config.string("PUBLIC_URL").pipe(
  Config.orElseIf({ if: ConfigError.isMissingDataOnly, orElse: () => listening }),
  Config.validate({
    message: "PUBLIC_URL must be an absolute http(s) URL",
    validation: (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)
  }),
  Config.map((s) => s.replace(/\/+$/, ""))
)
