import { Effect, Layer, Option } from "effect"
import { RecordSource } from "../Dns/RecordSource.js"
import { Directory } from "./Directory.js"
import { PublicUrl } from "./PublicUrl.js"
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
    return RecordSource.of({
      lookup: (handle) =>
        directory.find(handle).pipe(
          Effect.map(Option.map((user) => ({
            txt: txtRecords(user.identity),
            proofUrl: `${publicUrl}/api/identity/${user.handle}`
          })))
        )
    })
  })
)
