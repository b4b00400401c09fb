import { Config } from "effect"

/** `PUBLIC_URL` without a trailing slash: the identity proofs' issuer and the base of proof URLs. */
export const PublicUrl = Config.string("PUBLIC_URL").pipe(
  Config.withDefault("http://localhost:8080"),
  Config.validate({
    message: "PUBLIC_URL must be an absolute http(s) URL",
    validation: (s) => URL.canParse(s) && /^https?:$/.test(new URL(s).protocol)
  }),
  Config.map((s) => s.replace(/\/+$/, ""))
)
