import { Cache, Duration, Effect, Exit, Layer, Option } from "effect"
import { type IdentityRecords, RecordSource } from "../Dns/RecordSource.js"
import { hnsNames } from "../Identity.js"
import { CAPACITY, Directory, HIT_TTL, MISS_TTL } from "./Directory.js"
import { PublicUrl } from "./PublicUrl.js"
import { IdentityRepo, type IdentityRow } from "./Repo.js"
import { txtRecords } from "./TxtRecords.js"

// how long `peek` answers from what a lookup gave, without asking the Caches again (see `seen` below)
const SEEN_MS = 5_000

/** What a lookup gave for a key, for `peek`: `holder` is the handle whose Directory row `user` it came from. */
interface Seen {
  readonly records: IdentityRecords | null
  readonly holder: string | undefined
  readonly user: IdentityRow | undefined
  readonly expires: number
}

/**
 * The DNS responder's records from the database, through the identity Directory cache: a committed profile
 * change drops the cached entry, so the next query sees it. The proof URL is `${PUBLIC_URL}/api/identity/<handle>`.
 * A key with a trailing dot (`alice.`, see `linkedKey`) is a naming-system tld: the records of the account that
 * linked it (PATCH /api/agent/domains/<tld>), while its identity `hns` still names it (CONTRACT, "Identity TXT values").
 */
export const RecordSourceLive = Layer.scoped(
  RecordSource,
  Effect.gen(function*() {
    const directory = yield* Directory
    const publicUrl = yield* PublicUrl
    const repo = yield* IdentityRepo
    const clock = yield* Effect.clock
    // tld → the linking account's handle; the holder's row (and whether its hns still names the tld) is the Directory's.
    // A tld linked a moment ago announces nothing either: misses are kept as briefly as the Directory's.
    const links = yield* Cache.makeWith({
      capacity: CAPACITY,
      timeToLive: Exit.match({
        onFailure: () => Duration.zero,
        onSuccess: (handle: Option.Option<string>) => Option.isSome(handle) ? HIT_TTL : MISS_TTL
      }),
      lookup: (tld: string) => Effect.orDie(repo.linkedHandle(tld))
    })
    // one records object per cached row, so `peek` gives the same object until the Directory's entry changes
    const derived = new WeakMap<IdentityRow, IdentityRecords>()
    const recordsOf = (user: IdentityRow) => {
      let records = derived.get(user)
      if (records === undefined) {
        records = { txt: txtRecords(user.identity), proofUrl: `${publicUrl}/api/identity/${user.handle}` }
        derived.set(user, records)
      }
      return records
    }

    /**
     * What `lookup` gave lately, per key, for `peek`: the responder answers in the socket's callback without a fiber,
     * where reading the Caches cost 15–20× a Map read. Kept SEEN_MS past a Cache entry's own TTL at most; a handle's
     * invalidation drops its entry, and with it every tld entry derived from its row (`holder`).
     */
    const seen = new Map<string, Seen>()
    const remember = (key: string, records: IdentityRecords | null, holder?: string, user?: IdentityRow) => {
      if (seen.size >= CAPACITY && !seen.has(key)) seen.delete(seen.keys().next().value!)
      seen.set(key, { records, holder, user, expires: clock.unsafeCurrentTimeMillis() + SEEN_MS })
    }
    const forget = directory.onInvalidate((handle) => seen.delete(handle))
    yield* Effect.addFinalizer(() => Effect.sync(forget))

    const lookupHandle = (handle: string) =>
      Effect.map(directory.find(handle), (user) => {
        remember(handle, Option.isSome(user) ? recordsOf(user.value) : null, handle, Option.getOrUndefined(user))
        return user
      })

    const lookup = (key: string): Effect.Effect<Option.Option<IdentityRecords>> => {
      const tld = key.endsWith(".") ? key.slice(0, -1) : undefined
      if (tld === undefined) return lookupHandle(key).pipe(Effect.map(Option.map(recordsOf)))
      return links.get(tld).pipe(
        Effect.flatMap(Option.match({
          onNone: () => Effect.sync(() => remember(key, null)).pipe(Effect.as(Option.none())),
          onSome: (handle) =>
            Effect.map(lookupHandle(handle), (user) => {
              const held = Option.filter(user, (u) => u.identity.hns !== undefined && hnsNames(u.identity.hns, tld))
              const records = Option.map(held, recordsOf)
              remember(key, Option.getOrNull(records), handle, Option.getOrUndefined(user))
              return records
            })
        }))
      )
    }

    const peek = (key: string): IdentityRecords | null | undefined => {
      const entry = seen.get(key)
      if (entry === undefined || entry.expires <= clock.unsafeCurrentTimeMillis()) return undefined
      // a tld's entry stands only while its holder's own entry is the one it was derived from
      if (entry.holder !== undefined && entry.holder !== key && seen.get(entry.holder)?.user !== entry.user) {
        return undefined
      }
      return entry.records
    }

    return RecordSource.of({ lookup, peek, onChange: directory.onInvalidate })
  })
).pipe(Layer.provide(IdentityRepo.Default))
