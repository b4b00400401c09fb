import { SqlClient, SqlSchema } from "@effect/sql"
import { Effect, Schema } from "effect"

const SigningKeyRow = Schema.Struct({ kid: Schema.String, private_pkcs8: Schema.String, public_x: Schema.String })

export class SigningKeysRepo extends Effect.Service<SigningKeysRepo>()("Identity/SigningKeysRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const active = SqlSchema.findOne({
      Request: Schema.Void,
      Result: SigningKeyRow,
      execute: () => sql`SELECT kid, private_pkcs8, public_x FROM identity_signing_keys WHERE retired_at IS NULL`
    })

    /** Loses quietly to a key another node stored first (one active row, by unique index). */
    const insertIfNone = SqlSchema.void({
      Request: SigningKeyRow,
      execute: (row) => sql`INSERT INTO identity_signing_keys ${sql.insert(row)} ON CONFLICT DO NOTHING`
    })

    return { active, insertIfNone } as const
  })
}) {}
