import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type { Auth, Social as Api } from "@shoal/domain"
import { Effect } from "effect"
import { ReadCache, type Table } from "../Cache/ReadCache.js"
import { Social } from "../Social.js"

const encoder = new TextEncoder()

/**
 * A hot read's answers as JSON responses (`{ status: "success", ...answer }`), the bodies from the read cache while
 * nothing in `tables` changed (see ReadCache for when it is dropped); only a miss calls `read`. Not Effect.fn, nor
 * `read` called on a hit: that captures a stack trace per call, which showed in the profile of a hit.
 */
export const bodyCache = (tables: ReadonlyArray<Table>) =>
  Effect.map(ReadCache, (reads) => {
    const cache = reads.make<Uint8Array>({ tables, maxBytes: 32 * 1024 * 1024, size: (body) => body.byteLength })
    return <E, R>(key: string, read: () => Effect.Effect<object, E, R>) =>
      cache.get(key, () => Effect.map(read(), (r) => encoder.encode(JSON.stringify({ status: "success", ...r })))).pipe(
        Effect.map((body) => HttpServerResponse.uint8Array(body, { contentType: "application/json" }))
      )
  })

/**
 * A feed page, the hot read, through `bodyCache`: keyed by the reader (visibility, `my_vote` and the followed set
 * are the reader's); a miss costs what `Social.feed` does (one statement).
 */
export class FeedPages extends Effect.Service<FeedPages>()("Social/FeedPages", {
  effect: Effect.gen(function*() {
    const social = yield* Social
    // posts (with their comment counts and scores), authors' names, the followed set, the reader's projects and
    // their visibility, the reader's votes
    const cached = yield* bodyCache(["posts", "users", "follows", "project_members", "projects", "post_votes"])

    // the cursor goes last in the key: it is the only part that is free text
    const feed = (caller: Auth.Principal, q: Api.PageQuery) =>
      cached(`${caller.id}|${q.limit ?? 20}|${q.page ?? ""}|${q.cursor ?? ""}`, () => social.feed(caller, q))

    return { feed } as const
  })
}) {}
