import { SqlClient } from "@effect/sql"
import { Errors, Identity as Keys, IdentityApi as Api, Ids } from "@shoal/domain"
import { Clock, Effect, Either, Option, Schema } from "effect"
import { canonicalJson } from "./Http/CanonicalJson.js"
import { Directory } from "./Identity/Directory.js"
import { PublicUrl } from "./Identity/PublicUrl.js"
import { type DomainRow, IdentityRepo, MAX_DOMAINS_PER_USER } from "./Identity/Repo.js"
import { SigningKey } from "./Identity/SigningKey.js"

const isHandle = Schema.is(Ids.Handle)

const toDomain = (row: DomainRow) =>
  new Api.Domain({ tld: row.tld, mode: row.mode, redirect_url: row.redirect_url ?? "" })

const noNames = new Api.NostrJson({ names: {} })

/**
 * Whether an `hns` identity value names a tld: it is that very name, compared lowercased, without surrounding
 * spaces and without the trailing "/" (Handshake's way to write a top-level name, `alice/`) or ".". A name under
 * the tld (`blog.alice`) does not name it: holding a second-level name gives no say over the tld.
 */
export const hnsNames = (hns: string, tld: string) => hns.trim().toLowerCase().replace(/[./]+$/, "") === tld

/** Public identity: signed proofs, NIP-05 names, the verifying key, and each user's naming-system domains. */
export class Identity extends Effect.Service<Identity>()("Identity", {
  effect: Effect.gen(function*() {
    const directory = yield* Directory
    const key = yield* SigningKey
    const repo = yield* IdentityRepo
    const sql = yield* SqlClient.SqlClient
    const issuer = yield* PublicUrl

    /** Handles match case-insensitively; a string that cannot be a handle is simply unknown (404, not 400). */
    const find = (name: string) => {
      const handle = name.trim().toLowerCase()
      return isHandle(handle) ? directory.find(handle) : Effect.succeed(Option.none())
    }

    const proof = Effect.fn("Identity.proof")(function*(handle: string) {
      const found = yield* find(handle)
      if (Option.isNone(found)) return yield* new Errors.NotFound({ message: `no user with handle ${handle}` })
      const user = found.value
      const now = yield* Clock.currentTimeMillis
      const hns = user.identity.hns ?? ""
      // exactly the response body minus proof.signature: a verifier deletes that one field and canonicalizes
      const unsigned = {
        status: "success" as const,
        handle: user.handle,
        hns_handle: hns,
        display_name: user.display_name,
        records: { nostr: user.identity.nostr ?? "", btc: user.identity.btc ?? "", hns },
        proof: { issuer, timestamp: new Date(now).toISOString(), key_id: key.jwk.kid }
      }
      const signature = yield* key.sign(canonicalJson(unsigned))
      return new Api.IdentityProof({
        ...unsigned,
        records: new Api.IdentityRecords(unsigned.records),
        proof: new Api.ProofBlock({ ...unsigned.proof, signature })
      })
    })

    /** NIP-05: the name is echoed as asked, so clients that look up `names[name]` unchanged find it. */
    const nostr = Effect.fn("Identity.nostr")(function*(name: string | undefined) {
      if (name === undefined) return noNames
      const found = yield* find(name)
      const npub = Option.flatMapNullable(found, (user) => user.identity.nostr)
      if (Option.isNone(npub)) return noNames
      return Either.match(Keys.npubToHex(npub.value), {
        onLeft: () => noNames,
        onRight: (hex) => new Api.NostrJson({ names: { [name.trim()]: hex } })
      })
    })

    const keys = new Api.KeySet({ keys: [key.jwk] })

    const listDomains = Effect.fn("Identity.listDomains")(function*(userId: Ids.UserId) {
      const rows = yield* Effect.orDie(repo.listDomains(userId))
      return rows.map(toDomain)
    })

    /**
     * A tld is the caller's when its identity `hns` names it (see `hnsNames`), and one account's only: the holder
     * keeps it while its own hns still names it (409 for anyone else); a holder whose hns has moved on lets it go
     * to the next account whose hns names it. The unique index on `user_domains (tld)` settles racing claims.
     */
    const setDomain = Effect.fn("Identity.setDomain")(
      function*(userId: Ids.UserId, tld: string, patch: Api.DomainPatch) {
        const hns = yield* Effect.orDie(repo.hnsOf(userId))
        if (!Option.exists(hns, (h) => hnsNames(h, tld))) {
          return yield* new Errors.Forbidden({
            message: `the tld "${tld}" is not linked to this account: set identity.hns to "${tld}" first ` +
              `(PATCH /api/agent/profile {"identity":{"hns":"${tld}"}})`
          })
        }
        const takenBy = new Errors.Conflict({
          message: `the tld "${tld}" is already linked to another account, whose identity.hns names it`,
          details: { tld }
        })
        const saved = yield* Effect.gen(function*() {
          const holder = yield* repo.domainHolder(tld)
          if (Option.isSome(holder) && holder.value.user_id !== userId) {
            if (holder.value.hns !== null && hnsNames(holder.value.hns, tld)) return yield* takenBy
            yield* repo.dropDomain(holder.value.user_id, tld)
          }
          return yield* repo.claimDomain({
            userId,
            tld,
            mode: patch.domain_mode,
            redirectUrl: patch.redirect_url ?? null,
            at: new Date(yield* Clock.currentTimeMillis)
          })
        }).pipe(sql.withTransaction, Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))
        switch (saved._tag) {
          case "Taken":
            return yield* takenBy
          case "AtCap":
            return yield* new Errors.Unprocessable({
              message: `an account links at most ${MAX_DOMAINS_PER_USER} domains`
            })
          case "Saved":
            return toDomain(saved.row)
        }
      }
    )

    return { proof, nostr, keys, listDomains, setDomain } as const
  }),
  dependencies: [SigningKey.Default, IdentityRepo.Default]
}) {}
