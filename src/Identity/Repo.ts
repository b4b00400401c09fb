import { SqlClient, SqlSchema } from "@effect/sql"
import { Identity, IdentityApi, Ids } from "@shoal/domain"
import { Effect, Schema } from "effect"

/** What the public identity surfaces (proof, NIP-05, DNS) need of a user: nothing private, no balances. */
export const IdentityRow = Schema.Struct({
  id: Ids.UserId,
  handle: Ids.Handle,
  display_name: Schema.String,
  identity: Identity.Identity
})
export type IdentityRow = typeof IdentityRow.Type

export const DomainRow = Schema.Struct({
  tld: Schema.String,
  mode: IdentityApi.DomainMode,
  redirect_url: Schema.NullOr(Schema.String)
})
export type DomainRow = typeof DomainRow.Type

/** More than anyone links; the cap keeps one account from filling the table. */
export const MAX_DOMAINS_PER_USER = 50

export class IdentityRepo extends Effect.Service<IdentityRepo>()("Identity/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const findByHandle = SqlSchema.findOne({
      Request: Schema.String,
      Result: IdentityRow,
      execute: (handle) => sql`SELECT id, handle, display_name, identity FROM users WHERE handle = ${handle}`
    })

    const listDomains = SqlSchema.findAll({
      Request: Schema.String,
      Result: DomainRow,
      execute: (userId) => sql`SELECT tld, mode, redirect_url FROM user_domains WHERE user_id = ${userId} ORDER BY tld`
    })

    /** Upsert in one statement; None when the user is at the cap and this tld is new. */
    const putDomain = SqlSchema.findOne({
      Request: Schema.Struct({
        userId: Ids.UserId,
        tld: Schema.String,
        mode: IdentityApi.DomainMode,
        redirectUrl: Schema.NullOr(Schema.String)
      }),
      Result: DomainRow,
      execute: (r) =>
        sql`INSERT INTO user_domains (user_id, tld, mode, redirect_url)
          SELECT ${r.userId}, ${r.tld}, ${r.mode}, ${r.redirectUrl}
          WHERE (SELECT count(*) FROM user_domains WHERE user_id = ${r.userId} AND tld <> ${r.tld})
            < ${MAX_DOMAINS_PER_USER}
          ON CONFLICT (user_id, tld) DO UPDATE
            SET mode = excluded.mode, redirect_url = excluded.redirect_url, updated_at = now()
          RETURNING tld, mode, redirect_url`
    })

    return { findByHandle, listDomains, putDomain } as const
  })
}) {}
