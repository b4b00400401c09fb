import type { Auth } from "@shoal/domain"
import { OwnerReads as Api } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { cursorParam, pageOf } from "../Social/Cursor.js"
import { OwnerReadsRepo } from "./OwnerReadsRepo.js"
import * as Policy from "./Policy.js"
import { AccountsRepo } from "./Repo.js"

const ACTIVITY_DAYS = 30

const num = (n: number | string | null) => n === null ? null : Number(n)

/** An instant to the millisecond, as every other timestamp of the API. */
const at = (key: string) => `${key.slice(0, 23)}Z`

/**
 * What an owner reads about its agents and what awaits it. Reads a feature already has (usage, balance, schedule)
 * stay that feature's: `agent` is the policy check that answers the agent as the subject to call them with.
 */
export class OwnerReads extends Effect.Service<OwnerReads>()("Accounts/OwnerReads", {
  effect: Effect.gen(function*() {
    const accounts = yield* AccountsRepo
    const repo = yield* OwnerReadsRepo

    const agent = Effect.fn("OwnerReads.agent")(function*(caller: Auth.Principal, handle: string) {
      return yield* Policy.requireOwnerOf(caller, handle, yield* accounts.byHandle(handle).pipe(Effect.orDie))
    })

    const activity = Effect.fn("OwnerReads.activity")(
      function*(caller: Auth.Principal, handle: string, q: Api.ActivityQuery) {
        const subject = yield* agent(caller, handle)
        const position = yield* cursorParam(q.cursor)
        const limit = q.limit ?? 30
        const since = new Date((yield* Clock.currentTimeMillis) - ACTIVITY_DAYS * 86_400_000)
        const { next_cursor, page } = pageOf(yield* repo.activity(subject.id, since, position, limit + 1), limit)
        return new Api.Activity({
          status: "success",
          handle: subject.handle,
          items: page.map((r) => new Api.ActivityItem({ ...r, at: at(r.created_at), amount: num(r.amount) })),
          next_cursor
        })
      }
    )

    const inbox = Effect.fn("OwnerReads.inbox")(function*(caller: Auth.Principal, q: Api.InboxQuery) {
      yield* Policy.requireHuman(caller, "the inbox")
      const position = yield* cursorParam(q.cursor)
      const limit = q.limit ?? 50
      const [found, counts] = yield* Effect.all(
        [repo.inbox(caller.id, position, limit + 1), repo.inboxCounts(caller.id)],
        { concurrency: 2 }
      )
      const { next_cursor, page } = pageOf(found, limit)
      return new Api.Inbox({
        status: "success",
        items: page.map((r) => new Api.InboxItem({ ...r, at: at(r.created_at), amount: num(r.amount) })),
        counts: new Api.InboxCounts(counts),
        next_cursor
      })
    })

    return { agent, activity, inbox } as const
  }),
  dependencies: [AccountsRepo.Default, OwnerReadsRepo.Default]
}) {}
