import { SqlClient, SqlSchema } from "@effect/sql"
import { SqlError } from "@effect/sql/SqlError"
import { Identity, IdentityApi, Ids } from "@shoal/domain"
import { Effect, flow, Option, Schema } from "effect"

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

const DomainPut = Schema.Struct({
  userId: Ids.UserId,
  tld: Schema.String,
  mode: IdentityApi.DomainMode,
  redirectUrl: Schema.NullOr(Schema.String),
  /** the time the setting is stamped with, from the Clock */
  at: Schema.DateFromSelf
})

/** PostgreSQL's unique_violation, as the pg driver and PGlite both report it. */
const isUniqueViolation = (e: unknown) =>
  e instanceof SqlError && (e.cause as { readonly code?: unknown } | undefined)?.code === "23505"

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

    /** The user's `hns` identity value, None when the user has none (or does not exist). */
    const hnsOf = (userId: Ids.UserId) =>
      Effect.map(
        sql<{ hns: string | null }>`SELECT identity->>'hns' AS hns FROM users WHERE id = ${userId}`,
        (rows) => Option.fromNullable(rows[0]?.hns)
      )

    /** Who holds a tld, with that account's `hns` now; the row is locked until the transaction ends. */
    const domainHolder = (tld: string) =>
      Effect.map(
        sql<{ user_id: Ids.UserId; hns: string | null }>`SELECT d.user_id, u.identity->>'hns' AS hns
          FROM user_domains d JOIN users u ON u.id = d.user_id WHERE d.tld = ${tld} FOR UPDATE OF d`,
        (rows) => Option.fromNullable(rows[0])
      )

    const dropDomain = (userId: Ids.UserId, tld: string) =>
      sql`DELETE FROM user_domains WHERE user_id = ${userId} AND tld = ${tld}`

    /**
     * Upsert in one statement: `AtCap` when the user is at the cap and this tld is new, `Taken` when the unique index
     * on tld refuses a second holder (a claim racing this one on another connection), not an error.
     */
    const claimDomain = flow(
      SqlSchema.findOne({
        Request: DomainPut,
        Result: DomainRow,
        execute: (r) =>
          sql`INSERT INTO user_domains (user_id, tld, mode, redirect_url, created_at, updated_at)
            SELECT ${r.userId}, ${r.tld}, ${r.mode}, ${r.redirectUrl}, ${r.at}, ${r.at}
            WHERE (SELECT count(*) FROM user_domains WHERE user_id = ${r.userId} AND tld <> ${r.tld})
              < ${MAX_DOMAINS_PER_USER}
            ON CONFLICT (user_id, tld) DO UPDATE
              SET mode = excluded.mode, redirect_url = excluded.redirect_url, updated_at = excluded.updated_at
            RETURNING tld, mode, redirect_url`
      }),
      Effect.map(Option.match({
        onNone: () => ({ _tag: "AtCap" }) as const,
        onSome: (row) => ({ _tag: "Saved", row }) as const
      })),
      Effect.catchIf(isUniqueViolation, () => Effect.succeed({ _tag: "Taken" } as const))
    )

    /** The handle of the account that linked this naming-system tld (PATCH /api/agent/domains/<tld>), if any. */
    const linkedHandle = (tld: string) =>
      Effect.map(
        sql<{ handle: string }>`SELECT u.handle FROM user_domains d JOIN users u ON u.id = d.user_id
          WHERE d.tld = ${tld}`,
        (rows) => Option.fromNullable(rows[0]?.handle)
      )

    return { findByHandle, listDomains, hnsOf, domainHolder, dropDomain, claimDomain, linkedHandle } as const
  })
}) {}
