import { SqlClient, type SqlError } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { EventCatalog } from "@shoal/domain"
import { Clock, Config, Effect, Exit, FiberRef, Option } from "effect"
import { randomBytes } from "node:crypto"
import { lazyBegin } from "../Database/LazyBegin.js"
import { Pglite } from "../Database/PgliteClient.js"
import { Blocks } from "./Blocks.js"
import { type BlockRows, EventsRepo } from "./EventsRepo.js"

/** One event of `emitMany`: a catalog member's type and its data, for these recipients. */
export type OutboxEvent = {
  readonly [T in EventCatalog.EventType]: {
    readonly recipients: ReadonlyArray<Ids.UserId>
    readonly type: T
    readonly data: EventCatalog.EventData<T>
  }
}[EventCatalog.EventType]

/** A block held back by `Outbox.transaction` until its COMMIT: the emit's rows, salt and time. */
interface Held {
  readonly rows: BlockRows
  readonly salt: string
  readonly now: Date
}
// salts (16 hex digits) cut from one random buffer: one call for crypto per 512 emits, not one each
let entropy = Buffer.alloc(0)
let taken = 0
const newSalt = () => {
  if (taken + 8 > entropy.length) {
    entropy = randomBytes(4096)
    taken = 0
  }
  taken += 8
  return entropy.toString("hex", taken - 8, taken)
}

// set by Outbox.transaction for its body: where emits at the transaction's top level leave their blocks
const heldBlocks = FiberRef.unsafeMake<Array<Held> | undefined>(undefined)

/**
 * The transactional outbox. `emit` stores one event per recipient in the caller's transaction (call it from the
 * fiber that opened the transaction): the change and its events commit together or not at all.
 *
 * Cursor order = commit order. On a real server two transactions could take cursors 10 and 11 and commit 11
 * first; a reader that already moved past 11 would never see 10. So each emit first takes one transaction-level
 * advisory lock, held to commit: cursors are handed out in the order transactions commit, and a reader can
 * simply ask for `cursor > last` without a watermark. It also makes each emit's block of cursors contiguous. The
 * price is that emitting transactions serialize from their first emit to commit, so emit last in a transaction.
 * PGlite is one session whose transactions already run one at a time, so it skips the lock.
 *
 * A large emit with one payload (EVENT_FANOUT_AT recipients or more, default 256) is stored as one fan-out row
 * that the expander turns into per-recipient rows after the commit (migrations/0004_event_fanouts.ts): the
 * transaction stays short, and sockets on this node get the events from memory right after the commit.
 */
export class Outbox extends Effect.Service<Outbox>()("Realtime/Outbox", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* EventsRepo
    const blocks = yield* Blocks
    const embedded = Option.isSome(yield* Effect.serviceOption(Pglite))
    const fanoutAt = yield* Config.integer("EVENT_FANOUT_AT").pipe(Config.withDefault(256), Effect.orDie)

    const write = (rows: {
      readonly recipients: ReadonlyArray<Ids.UserId>
      readonly types: ReadonlyArray<string> | string
      readonly datas: ReadonlyArray<string> | string
    }) =>
      Effect.gen(function*() {
        if (rows.recipients.length === 0) return
        const now = yield* Clock.currentTimeMillis
        const salt = newSalt()
        const { datas, recipients, types } = rows
        const fanout = typeof types === "string" && typeof datas === "string" && recipients.length >= fanoutAt
        const held = yield* FiberRef.get(heldBlocks)
        if (held !== undefined && !fanout) {
          // inside Outbox.transaction, not in a savepoint (a savepoint rolled back must take its events with it)
          const tx = yield* Effect.serviceOption(SqlClient.TransactionConnection)
          if (Option.isSome(tx) && tx.value[1] === 0) {
            held.push({ rows, salt, now: new Date(now) })
            return
          }
        }
        const stored = fanout
          ? repo.insertFanout({ recipients, type: types, data: datas }, salt, new Date(now), !embedded)
          : repo.insertBlock(rows, salt, new Date(now), !embedded)
        const insert = Effect.tap(stored, ({ createdAt, lo }) =>
          Effect.sync(() =>
            blocks.add({ ...rows, lo, hi: lo + rows.recipients.length - 1, salt, createdAt })
          ))
        // outside a transaction it still gets one: the block is then known here before its commit notice arrives
        const inTransaction = Option.isSome(yield* Effect.serviceOption(SqlClient.TransactionConnection))
        yield* (inTransaction ? insert : sql.withTransaction(insert)).pipe(Effect.orDie)
      })

    /** One catalog event to each of `recipientIds`; `data` is encoded to JSON once, whatever the fan-out. */
    const emit: <T extends EventCatalog.EventType>(
      recipientIds: ReadonlyArray<Ids.UserId>,
      type: T,
      data: EventCatalog.EventData<T>
    ) => Effect.Effect<void> = Effect.fn("Outbox.emit")(
      function*(
        recipientIds: ReadonlyArray<Ids.UserId>,
        type: EventCatalog.EventType,
        data: EventCatalog.EventData<EventCatalog.EventType>
      ) {
        yield* write({
          recipients: [...new Set(recipientIds)],
          types: type,
          datas: EventCatalog.encodeData(type, data)
        })
      }
    )

    /** Several events, each with its own recipients, type and data, in one statement; same rules as `emit`. */
    const emitMany = Effect.fn("Outbox.emitMany")(function*(events: ReadonlyArray<OutboxEvent>) {
      const recipients: Array<Ids.UserId> = []
      const types: Array<string> = []
      const datas: Array<string> = []
      for (const e of events) {
        const data = EventCatalog.encodeData(e.type, e.data)
        for (const r of new Set(e.recipients)) {
          recipients.push(r)
          types.push(e.type)
          datas.push(data)
        }
      }
      yield* write({ recipients, types, datas })
    })

    /**
     * `sql.withTransaction` for a body that emits. On a server, at the top level, the body's emits are held back
     * and sent with COMMIT in one script (EventsRepo.insertBlocksAndCommit): the order lock is then taken and
     * released within one round trip, where an emit in the body holds it across the insert's round trip, the
     * app's way back to COMMIT and COMMIT's own round trip. Every event is still in the transaction of its write:
     * the script fails as a whole, and a failed body rolls back with nothing sent. Nested in another transaction
     * (a savepoint), or embedded (one transaction at a time, no lock), it is `sql.withTransaction` itself.
     * Kept on a measure: plain `sql.withTransaction` with bound values (BEGIN, move, events, COMMIT: four round trips
     * with the row locks held, not two) took the wallet bench on a server from 0.49-0.72x to 0.31-0.41x of the direct
     * SQL, at the same CPU per transfer (git log: "LazyBegin and the COMMIT script go").
     */
    const transaction = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.flatMap(
        Effect.serviceOption(SqlClient.TransactionConnection),
        (outer) => embedded || Option.isSome(outer) ? sql.withTransaction(body) : commitWithEvents(body)
      )

    const commitWithEvents = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.uninterruptibleMask((restore) =>
        Effect.scoped(Effect.gen(function*() {
          const conn = yield* sql.reserve
          // BEGIN goes with the body's first statement (one round trip less), or with the COMMIT script
          const tx = lazyBegin(conn)
          const held: Array<Held> = []
          const exit: Exit.Exit<A, E> = yield* Effect.exit(
            Effect.locally(
              Effect.provideService(restore(body), SqlClient.TransactionConnection, [tx, 0] as const),
              heldBlocks,
              held
            )
          )
          const rollback = Effect.orDie(conn.executeUnprepared("ROLLBACK", [], undefined))
          if (Exit.isFailure(exit)) {
            // no BEGIN sent (the body failed before its first statement): no transaction to roll back
            if (tx.begun()) yield* rollback
            return yield* exit
          }
          // nothing written, nothing to store: no transaction was opened
          if (held.length === 0 && !tx.begun()) return exit.value
          // as withTransaction does with a failed COMMIT: a defect, after rolling back what is left (the script
          // may have opened the transaction itself)
          const salts = held.map((h) => h.salt)
          blocks.sending(salts)
          const stored = yield* repo.insertBlocksAndCommit(conn, held, !tx.begun()).pipe(
            Effect.tapErrorCause(() => Effect.sync(() => blocks.abandoned(salts))),
            Effect.tapError(() => rollback),
            Effect.orDie
          )
          held.forEach((h, i) => {
            const { createdAt, lo } = stored[i]!
            blocks.add({ ...h.rows, lo, hi: lo + h.rows.recipients.length - 1, salt: h.salt, createdAt })
          })
          return exit.value
        }))
      )

    /**
     * For a body running at the top level of a transaction that writes for several requests at once (a group
     * commit, src/Database/GroupCommit.ts): its emits are held and stored at its end as ONE block, in one
     * statement, instead of one insert each (bench/README.md, "writes"). Still in the transaction: if the body or
     * the insert fails, the caller rolls back with nothing stored. Fails with the insert's SqlError.
     */
    const gathered = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E | SqlError.SqlError, R> =>
      Effect.suspend(() => {
        const held: Array<Held> = []
        return Effect.flatMap(
          Effect.locally(body, heldBlocks, held),
          (value) => held.length === 0 ? Effect.succeed(value) : Effect.as(storeHeld(held), value)
        )
      })

    const storeHeld = (held: ReadonlyArray<Held>) =>
      Effect.suspend(() => {
        const recipients: Array<Ids.UserId> = []
        const types: Array<string> = []
        const datas: Array<string> = []
        let now = held[0]!.now
        for (const h of held) {
          if (h.now > now) now = h.now
          h.rows.recipients.forEach((r, i) => {
            recipients.push(r)
            types.push(typeof h.rows.types === "string" ? h.rows.types : h.rows.types[i]!)
            datas.push(typeof h.rows.datas === "string" ? h.rows.datas : h.rows.datas[i]!)
          })
        }
        const rows = { recipients, types, datas }
        const salt = newSalt()
        return Effect.map(repo.insertBlock(rows, salt, now, !embedded), ({ createdAt, lo }) =>
          blocks.add({ ...rows, lo, hi: lo + recipients.length - 1, salt, createdAt }))
      })

    return { emit, emitMany, transaction, gathered } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
