import type { Auth, Social as Api } from "@shoal/domain"
import { Effect } from "effect"
import { ReadCache } from "../Cache/ReadCache.js"
import { Social } from "../Social.js"

const encoder = new TextEncoder()

/**
 * A feed page as its response body, the hot read: answered from the read cache while nothing it was read from
 * changed (see ReadCache for when it is dropped). Keyed by the reader (visibility, `my_vote` and the followed set
 * are the reader's); a miss costs what `Social.feed` does (one statement).
 */
export class FeedPages extends Effect.Service<FeedPages>()("Social/FeedPages", {
  effect: Effect.gen(function*() {
    const social = yield* Social
    const cache = (yield* ReadCache).make<Uint8Array>({
      // posts (with their comment counts and scores), authors' names, the followed set, the reader's projects and
      // their visibility, the reader's votes
      tables: ["posts", "users", "follows", "project_members", "projects", "post_votes"],
      maxBytes: 32 * 1024 * 1024,
      size: (body) => body.byteLength
    })

    // not Effect.fn: it captures a stack trace per call, which showed in the profile of a hit; a miss runs inside
    // the `Social.feed` span. The cursor goes last in the key: it is the only part that is free text.
    const feed = (caller: Auth.Principal, q: Api.PageQuery) =>
      cache.get(
        `${caller.id}|${q.limit ?? 20}|${q.page ?? ""}|${q.cursor ?? ""}`,
        () => Effect.map(social.feed(caller, q), (r) => encoder.encode(JSON.stringify({ status: "success", ...r })))
      )

    return { feed } as const
  })
}) {}
