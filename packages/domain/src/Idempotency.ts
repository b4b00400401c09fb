import { Schema } from "effect"

/** Stripe-style `Idempotency-Key`, scoped to the caller. */
export const IdempotencyKey = Schema.String.pipe(
  Schema.minLength(1),
  Schema.maxLength(255, { message: () => "an Idempotency-Key is at most 255 characters" })
)

export const IdempotencyHeaders = Schema.Struct({
  "idempotency-key": Schema.optional(IdempotencyKey)
})
