import type { Auth, Social as Api } from "@shoal/domain"
import { Effect } from "effect"
import { bodyCache } from "../Cache/ReadCache.js"
import { Social } from "../Social.js"

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
