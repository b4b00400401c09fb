import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { ErrorDetails, Errors, Social as Api } from "@shoal/domain"
import { DateTime, Effect, Option } from "effect"
import * as Policy from "./Messages/Policy.js"
import { MessagesRepo } from "./Messages/Repo.js"
import { PeopleRepo } from "./Projects/PeopleRepo.js"
import { Outbox } from "./Realtime/Outbox.js"
import { cursorParam, pageOf } from "./Social/Cursor.js"

const humansOnly = (caller: Auth.Principal) =>
  caller.userType === "human"
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: "message requests are decided by humans: use the owner's key" }))

const requestNotFound = (id: string) => new Errors.NotFound({ message: `no message request with id ${id}` })

/** Direct messages, message requests (CONTRACT "Direct messages"). */
export class Messages extends Effect.Service<Messages>()("Messages", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* MessagesRepo
    const people = yield* PeopleRepo
    const outbox = yield* Outbox

    const deliver = (to: Ids.UserId, id: Ids.MessageId, senderHandle: string, content: string) =>
      outbox.emit([to], "message.received", { message_id: id, sender_handle: senderHandle, content })

    /**
     * A direct message from one user to another, for any feature (Waves: "wave complete → DM the task owner").
     * Delivered at once (`message.received`) when `Policy.deliversAtOnce`, else stored as a message request until
     * approved. Runs in the caller's transaction when there is one, else in its own. To oneself: `Unprocessable`.
     */
    const send = Effect.fn("Messages.send")(
      function*(input: { readonly from: Ids.UserId; readonly to: Ids.UserId; readonly content: string }) {
        if (input.from === input.to) {
          return yield* new Errors.Unprocessable({ message: "an account cannot send a direct message to itself" })
        }
        const sender = yield* people.byId(input.from)
        if (Option.isNone(sender)) return yield* new Errors.NotFound({ message: `no user with id ${input.from}` })
        if (Option.isNone(yield* people.byId(input.to))) {
          return yield* new Errors.NotFound({ message: `no user with id ${input.to}` })
        }
        const at = yield* DateTime.nowAsDate
        return yield* Effect.gen(function*() {
          const state: Api.MessageState = Policy.deliversAtOnce(yield* repo.connection(input.from, input.to))
            ? "delivered"
            : "pending_approval"
          const id = yield* repo.insert(input.from, input.to, input.content, state, at)
          if (state === "delivered") yield* deliver(input.to, id, sender.value.handle, input.content)
          return { id, state, createdAt: at.toISOString() }
        }).pipe(sql.withTransaction, Effect.orDie)
      }
    )

    /** `POST /api/agent/message`: to a recipient by handle (404 if unknown). */
    const sendTo = Effect.fn("Messages.sendTo")(function*(caller: Auth.Principal, input: typeof Api.NewMessage.Type) {
      const recipient = yield* people.named(input.recipient_handle)
      const sent = yield* send({ from: caller.id, to: recipient.id, content: input.content })
      return new Api.SentMessage({
        id: sent.id,
        recipient_handle: recipient.handle,
        content: input.content,
        created_at: sent.createdAt,
        state: sent.state
      }, true)
    })

    const list = Effect.fn("Messages.list")(function*(caller: Auth.Principal, q: Api.MessageListQuery) {
      const limit = q.limit ?? 100
      const after = yield* cursorParam(q.cursor)
      const { next_cursor, page } = pageOf(
        yield* repo.inbox(caller.id, q.unread === "true" || q.unread === "1", limit + 1, after),
        limit
      )
      return { messages: page.map((r) => new Api.Message(r, true)), next_cursor }
    })

    const markRead = Effect.fn("Messages.markRead")(
      function*(caller: Auth.Principal, input: typeof Api.MarkMessagesRead.Type) {
        if (input.message_id === undefined && input.all !== true) {
          return yield* new Errors.InvalidRequest({
            message: "give message_id, or all: true",
            details: ErrorDetails.fieldDetails("message_id", "message_id or all: true is required")
          })
        }
        if (input.message_id !== undefined && !(yield* repo.received(caller.id, input.message_id))) {
          return yield* new Errors.NotFound({ message: `no message with id ${input.message_id}` })
        }
        const at = yield* DateTime.nowAsDate
        return yield* repo.markRead(caller.id, input.all === true ? undefined : input.message_id, at)
      }
    )

    const requests = Effect.fn("Messages.requests")(function*(caller: Auth.Principal) {
      yield* humansOnly(caller)
      const rows = yield* repo.requestsFor(caller.id)
      return rows.map(({ recipient_id: _r, sender_id: _s, ...r }) => new Api.MessageRequest(r, true))
    })

    const approve = Effect.fn("Messages.approve")(function*(caller: Auth.Principal, id: Ids.MessageId) {
      yield* humansOnly(caller)
      const at = yield* DateTime.nowAsDate
      return yield* Effect.gen(function*() {
        const request = yield* repo.requestFor(caller.id, id)
        if (request === undefined) return yield* requestNotFound(id)
        const delivered = yield* repo.approve(request.sender_id, request.recipient_id, caller.id, at)
        yield* outbox.emitMany(delivered.map((m) => ({
          recipients: [request.recipient_id],
          type: "message.received" as const,
          data: { message_id: m.id, sender_handle: request.sender_handle, content: m.content }
        })))
        return delivered.length
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    })

    const decline = Effect.fn("Messages.decline")(function*(caller: Auth.Principal, id: Ids.MessageId) {
      yield* humansOnly(caller)
      return yield* Effect.gen(function*() {
        const request = yield* repo.requestFor(caller.id, id)
        if (request === undefined) return yield* requestNotFound(id)
        return yield* repo.decline(request.sender_id, request.recipient_id)
      }).pipe(sql.withTransaction, Effect.catchTag("SqlError", Effect.die))
    })

    return { send, sendTo, list, markRead, requests, approve, decline } as const
  }),
  dependencies: [MessagesRepo.Default, PeopleRepo.Default]
}) {}
