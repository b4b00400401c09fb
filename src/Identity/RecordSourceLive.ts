import { Effect, Layer, Option } from "effect"
import { RecordSource } from "../Dns/RecordSource.js"
import { Directory } from "./Directory.js"
import { PublicUrl } from "./PublicUrl.js"
import type { IdentityRow } from "./Repo.js"
import { txtRecords } from "./TxtRecords.js"

/**
 * The DNS responder's records from the database, through the identity Directory cache: a committed profile
 * change drops the cached entry, so the next query sees it. The proof URL is `${PUBLIC_URL}/api/identity/<handle>`.
 */
export const RecordSourceLive = Layer.effect(
  RecordSource,
  Effect.gen(function*() {
    const directory = yield* Directory
    const publicUrl = yield* PublicUrl
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
    return RecordSource.of({
      lookup: (handle) => directory.find(handle).pipe(Effect.map(Option.map(recordsOf))),
      peek: (handle) => {
        const cached = directory.peek(handle)
        return cached === undefined ? undefined : Option.isSome(cached) ? recordsOf(cached.value) : null
      },
      onChange: directory.onInvalidate
    })
  })
)
