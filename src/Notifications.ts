import { SqlClient } from "@effect/sql"
import type { Auth } from "@shoal/domain"
import { ErrorDetails, Errors, Social as Api } from "@shoal/domain"
import { Effect } from "effect"
import { NotificationsRepo } from "./Notifications/Repo.js"

// an event id is evt_ + its cursor as 16 hex digits + a salt (Realtime/EventRow.ts)
const eventId = /^evt_([0-9a-f]{16})[0-9a-f]*$/

/** Notifications: the caller's stored events with a read mark, not a second copy of each write. */
export class Notifications extends Effect.Service<Notifications>()("Notifications", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* NotificationsRepo

    const list = Effect.fn("Notifications.list")(function*(caller: Auth.Principal, q: Api.NotificationListQuery) {
      const rows = yield* repo.list(caller.id, q.unread === "true" || q.unread === "1", q.limit ?? 50)
      return rows.map((r) => new Api.Notification(r, true))
    })

    const markRead = Effect.fn("Notifications.markRead")(
      function*(caller: Auth.Principal, input: typeof Api.MarkNotificationsRead.Type) {
        if (input.all === true) return yield* repo.markAll(caller.id).pipe(sql.withTransaction, Effect.orDie)
        if (input.notification_id === undefined) {
          return yield* new Errors.InvalidRequest({
            message: "give notification_id, or all: true",
            details: ErrorDetails.fieldDetails("notification_id", "notification_id or all: true is required")
          })
        }
        const id = input.notification_id
        const m = eventId.exec(id)
        const cursor = m === null ? undefined : Number.parseInt(m[1]!, 16)
        if (cursor === undefined || !(yield* repo.find(caller.id, id, cursor))) {
          return yield* new Errors.NotFound({ message: `no notification with id ${id}` })
        }
        return yield* repo.markOne(caller.id, cursor)
      }
    )

    return { list, markRead } as const
  }),
  dependencies: [NotificationsRepo.Default]
}) {}
