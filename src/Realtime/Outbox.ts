import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { EventCatalog } from "@shoal/domain"
import { Clock, Config, Effect, FiberRef, Option } from "effect"
import { randomBytes } from "node:crypto"
import * as CommitScript from "../Database/CommitScript.js"
import { Blocks } from "./Blocks.js"
import type { BlockRows } from "./EventRow.js"
import { blockHead, EventsRepo, LOCK_ORDER } from "./EventsRepo.js"

/** One event of `emitMany`: a catalog member's type and its data, for these recipients. */
export type OutboxEvent = {
  readonly [T in EventCatalog.EventType]: {
    readonly recipients: ReadonlyArray<Ids.UserId>
    readonly type: T
    readonly data: EventCatalog.EventData<T>
  }
}[EventCatalog.EventType]

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

/** Several emits' rows as one block's, each row with its own type and data. */
const concat = (emits: ReadonlyArray<BlockRows>): BlockRows => ({
  recipients: emits.flatMap((rows) => rows.recipients),
  types: emits.flatMap(({ recipients, types }) => typeof types === "string" ? recipients.map(() => types) : types),
  datas: emits.flatMap(({ datas, recipients }) => typeof datas === "string" ? recipients.map(() => datas) : datas)
})

// set by Outbox.gathered for its body: where emits at the transaction's top level leave their blocks
const heldBlocks = FiberRef.unsafeMake<Array<BlockRows> | undefined>(undefined)

/**
 * The transactional outbox. `emit` stores one event per recipient in the caller's transaction (call it from the
 * fiber that opened the transaction): the change and its events commit together or not at all.
 *
 * Cursor order = commit order. On a real server two transactions could take cursors 10 and 11 and commit 11
 * first; a reader that already moved past 11 would never see 10. So an emitting transaction takes one
 * transaction-level advisory lock (LOCK_ORDER) before its inserts, held to commit: cursors are handed out in the
 * order transactions commit, and a reader can simply ask for `cursor > last` without a watermark. It also makes
 * each emit's block of cursors contiguous. Emitting transactions serialize on it, so it must be held briefly: on a
 * server an emit's insert is held back and pipelined with its transaction's COMMIT, the lock first
 * (src/Database/CommitScript.ts, which every `sql.withTransaction` there is): taken and released within COMMIT's
 * own round trip, never across the app's way back to COMMIT. Held even in a savepoint, whose rollback drops it.
 * PGlite is one session whose transactions already run one at a time, so it skips the lock and inserts at once.
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
    const fanoutAt = yield* Config.integer("EVENT_FANOUT_AT").pipe(Config.withDefault(256), Effect.orDie)

    const write = (rows: BlockRows): Effect.Effect<void> =>
      Effect.gen(function*() {
        if (rows.recipients.length === 0) return
        const tx = yield* Effect.serviceOption(SqlClient.TransactionConnection)
        // outside a transaction it still gets one: on a server its insert then goes with the COMMIT
        if (Option.isNone(tx)) return yield* Effect.orDie(sql.withTransaction(write(rows)))
        const { datas, recipients, types } = rows
        const fanout = typeof types === "string" && typeof datas === "string" && recipients.length >= fanoutAt
        const gathering = yield* FiberRef.get(heldBlocks)
        // inside Outbox.gathered, not in a savepoint (a savepoint rolled back must take its events with it)
        if (gathering !== undefined && !fanout && tx.value[1] === 0) {
          gathering.push(rows)
          return
        }
        const now = new Date(yield* Clock.currentTimeMillis)
        const salt = newSalt()
        const added = ({ createdAt, lo }: { readonly lo: number; readonly createdAt: string }) =>
          blocks.add({ ...rows, lo, hi: lo + recipients.length - 1, salt, createdAt })
        const server = CommitScript.holding(tx.value[0])
        if (server !== undefined) {
          server.atCommit({
            prelude: LOCK_ORDER,
            statement: fanout
              ? repo.insertFanout({ recipients, types, datas }, salt, now).compile()
              : repo.insertBlock(rows, salt, now).compile(),
            // its commit notice may come before the answer: Blocks then knows the salt as this node's
            sending: () => blocks.sending(salt),
            committed: (result) => added(blockHead(result)),
            abandoned: () => blocks.abandoned(salt)
          })
          return
        }
        const stored = fanout
          ? repo.insertFanout({ recipients, types, datas }, salt, now)
          : repo.insertBlock(rows, salt, now)
        yield* Effect.orDie(Effect.map(stored, (result) => added(blockHead(result))))
      })

    /** One catalog event to each of `recipientIds`; `data` is encoded to JSON once, whatever the fan-out. */
    const emit = Effect.fn("Outbox.emit")(function*<T extends EventCatalog.EventType>(
      recipientIds: ReadonlyArray<Ids.UserId>,
      type: T,
      data: EventCatalog.EventData<T>
    ) {
      yield* write({ recipients: [...new Set(recipientIds)], types: type, datas: EventCatalog.encodeData(type, data) })
    })

    /** Several events, each with its own recipients, type and data, in one statement; same rules as `emit`. */
    const emitMany = Effect.fn("Outbox.emitMany")(function*(events: ReadonlyArray<OutboxEvent>) {
      yield* write(concat(events.map((e) => ({
        recipients: [...new Set(e.recipients)],
        types: e.type,
        datas: EventCatalog.encodeData(e.type, e.data)
      }))))
    })

    /**
     * For a body running at the top level of a transaction that writes for several requests at once (a group
     * commit, src/Database/GroupCommit.ts): its emits are held and stored at its end as ONE block, in one
     * statement, instead of one insert each (bench/README.md, "writes"). Still in the transaction: if the body or
     * the insert fails, the caller rolls back with nothing stored.
     */
    const gathered = <A, E, R>(body: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.suspend(() => {
        const held: Array<BlockRows> = []
        return Effect.flatMap(Effect.locally(body, heldBlocks, held), (value) => Effect.as(write(concat(held)), value))
      })

    return { emit, emitMany, gathered } as const
  }),
  dependencies: [EventsRepo.Default]
}) {}
