import type { Ids } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { randomBytes } from "node:crypto"
import { WebhookSecretsRepo } from "./SecretsRepo.js"

/** `whsec_` + 24 random bytes in base64, the Standard Webhooks secret format. */
const generateSecret = () => `whsec_${randomBytes(24).toString("base64")}`

/** Per-account webhook signing secret: made on first need, replaced by POST /api/account/webhook-secret. */
export class WebhookSecrets extends Effect.Service<WebhookSecrets>()("Webhooks/Secrets", {
  effect: Effect.gen(function*() {
    const repo = yield* WebhookSecretsRepo

    const current = Effect.fn("WebhookSecrets.current")((userId: Ids.UserId) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => repo.current(userId, generateSecret(), now)).pipe(Effect.orDie)
    )

    const rotate = Effect.fn("WebhookSecrets.rotate")((userId: Ids.UserId) => {
      const secret = generateSecret()
      return Effect.flatMap(Clock.currentTimeMillis, (now) => repo.replace(userId, secret, now)).pipe(
        Effect.as(secret),
        Effect.orDie
      )
    })

    return { current, rotate } as const
  }),
  dependencies: [WebhookSecretsRepo.Default]
}) {}
