import { Effect, Layer, Option } from "effect"
import * as TtlCache from "../Cache/TtlCache.js"
import { RecordSource } from "../Dns/RecordSource.js"
import { hnsNames } from "../Identity.js"
import { Directory } from "./Directory.js"
import { PublicUrl } from "./PublicUrl.js"
import { IdentityRepo, type IdentityRow } from "./Repo.js"
import { txtRecords } from "./TxtRecords.js"

// a tld linked a moment ago announces nothing: forget misses soon, as the Directory does for unknown handles
const LINK_HIT_TTL_MS = 60_000
const LINK_MISS_TTL_MS = 5_000

/**
 * The DNS responder's records from the database, through the identity Directory cache: a committed profile
 * change drops the cached entry, so the next query sees it. The proof URL is `${PUBLIC_URL}/api/identity/<handle>`.
 * A key with a trailing dot (`alice.`, see `linkedKey`) is a naming-system tld: the records of the account that
 * linked it (PATCH /api/agent/domains/<tld>), while its identity `hns` still names it (CONTRACT, "Identity TXT values").
 */
export const RecordSourceLive = Layer.effect(
  RecordSource,
  Effect.gen(function*() {
    const directory = yield* Directory
    const publicUrl = yield* PublicUrl
    const repo = yield* IdentityRepo
    // tld → the linking account's handle; the holder's row (and whether its hns still names the tld) is the Directory's
    const links = yield* TtlCache.make({
      capacity: 50_000,
      ttlMillis: (handle: Option.Option<string>) => Option.isSome(handle) ? LINK_HIT_TTL_MS : LINK_MISS_TTL_MS,
      lookup: (tld: string) => Effect.orDie(repo.linkedHandle(tld))
    })
    // one records object per cached row, so `peek` gives the same object until the Directory's entry changes
    const derived = new WeakMap<IdentityRow, { txt: ReadonlyArray<string>; proofUrl: string }>()
    const recordsOf = (user: IdentityRow) => {
      let records = derived.get(user)
      if (records === undefined) {
        records = { txt: txtRecords(user.identity), proofUrl: `${publicUrl}/api/identity/${user.handle}` }
        derived.set(user, records)
      }
      return records
    }
    const holds = (tld: string) => (user: IdentityRow) =>
      user.identity.hns !== undefined && hnsNames(user.identity.hns, tld)
    const tldOf = (key: string) => key.endsWith(".") ? key.slice(0, -1) : undefined

    const lookup = (key: string) => {
      const tld = tldOf(key)
      if (tld === undefined) return directory.find(key).pipe(Effect.map(Option.map(recordsOf)))
      return links.get(tld).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.succeedNone,
          onSome: (handle) => directory.find(handle)
        })),
        Effect.map((user) => Option.map(Option.filter(user, holds(tld)), recordsOf))
      )
    }

    const peekHandle = (handle: string) => {
      const cached = directory.peek(handle)
      return cached === undefined ? undefined : Option.isSome(cached) ? cached.value : null
    }

    return RecordSource.of({
      lookup,
      peek: (key) => {
        const tld = tldOf(key)
        if (tld === undefined) {
          const user = peekHandle(key)
          return user == null ? user : recordsOf(user)
        }
        const link = links.peek(tld)
        if (link === undefined) return undefined
        if (Option.isNone(link)) return null
        const user = peekHandle(link.value)
        return user == null ? user : holds(tld)(user) ? recordsOf(user) : null
      },
      onChange: directory.onInvalidate
    })
  })
).pipe(Layer.provide(IdentityRepo.Default))
