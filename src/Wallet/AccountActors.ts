import {
  Chunk,
  Clock,
  Config,
  Deferred,
  Duration,
  Effect,
  type Exit,
  FiberMap,
  type FiberRefs,
  Mailbox,
  Option
} from "effect"
import { Supervisor } from "../Supervisor.js"

/** A movement waiting in an account's inbox: it runs the caller's effect and answers the caller. */
type Job = Effect.Effect<void>

/** A message in an account's inbox: a movement, an idle check from the janitor, or a defect (tests). */
type Message =
  | { readonly _tag: "Job"; readonly job: Job }
  | { readonly _tag: "Idle" }
  | { readonly _tag: "Crash" }

const idleCheck: Message = { _tag: "Idle" }

/** One account's actor state, outside its fiber so a restarted actor resumes its queue where it died. */
interface Account {
  readonly inbox: Mailbox.Mailbox<Message>
  batch: ReadonlyArray<Message> | undefined
  at: number
  /** when its last movement was queued (Clock) */
  lastUsed: number
}

/**
 * One actor per hot wallet account, as the Effect discord-bot keeps its reminders: a supervised fiber in a
 * `FiberMap` keyed by account, with an inbox of movements it applies one at a time in the order they came, so a
 * burst against one account waits in memory (not on row locks holding connections) while other accounts' actors
 * run beside it. An actor unused for `ACCOUNT_ACTOR_IDLE` ends and leaves nothing behind.
 *
 * A movement runs in the actor with its caller's fiber refs (context, log annotations, response handlers such as
 * `Idempotent-Replayed`), and what it set is handed back to the caller with its result. Once queued, a movement
 * runs to its end even if its caller is interrupted (a client that went away), and the caller waits for it; the
 * handler deadline answers the client without interrupting it (src/Http/HoldingServer.ts). Correctness never rests
 * on the actor: the ledger's conditional update in the database decides every movement (other nodes, or the other
 * process, have their own actors).
 */
export class AccountActors extends Effect.Service<AccountActors>()("Wallet/AccountActors", {
  scoped: Effect.gen(function*() {
    const supervisor = yield* Supervisor
    const idle = yield* Config.duration("ACCOUNT_ACTOR_IDLE").pipe(Config.withDefault(Duration.minutes(1)))
    const idleMs = Duration.toMillis(idle)
    const accounts = new Map<string, Account>()
    // forks into the service's own context, not the first caller's
    const fibers = yield* FiberMap.make<string>()
    const fork = yield* FiberMap.runtime(fibers)<never>()

    /** The actor's loop: apply what is queued, in order; end at an idle check with nothing queued behind it. */
    const actor = (key: string, account: Account): Effect.Effect<void> =>
      Effect.gen(function*() {
        const own = yield* Effect.getFiberRefs
        while (true) {
          if (account.batch === undefined) {
            const [messages] = yield* account.inbox.takeAll
            account.batch = Chunk.toReadonlyArray(messages)
            account.at = 0
          }
          const batch = account.batch
          while (account.at < batch.length) {
            // past it before applying it: a message that kills the actor is not applied again by its successor
            const m = batch[account.at++]!
            if (m._tag === "Crash") return yield* Effect.die(new Error(`injected defect in account ${key}'s actor`))
            if (m._tag === "Job") yield* Effect.ensuring(m.job, Effect.setFiberRefs(own))
            // decided synchronously: a caller either found this actor before it left (and is behind this check) or
            // finds none and starts a fresh one
            else if (
              account.at === batch.length && Option.getOrElse(account.inbox.unsafeSize(), () => 0) === 0 &&
              (yield* Clock.currentTimeMillis) - account.lastUsed >= idleMs && accounts.get(key) === account
            ) return void accounts.delete(key)
          }
          account.batch = undefined
        }
      })

    // the janitor: actors unused for ACCOUNT_ACTOR_IDLE are asked to check whether they can leave (an inbox check,
    // not a timeout raced against the inbox, which could drop what a take had just taken)
    yield* supervisor.every(
      "account",
      "janitor",
      idle,
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        for (const account of accounts.values()) {
          if (now - account.lastUsed >= idleMs) account.inbox.unsafeOffer(idleCheck)
        }
      })
    )

    const offer = (key: string, message: Message) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const found = accounts.get(key)
        if (found !== undefined) {
          found.lastUsed = now
          return Effect.sync(() => void found.inbox.unsafeOffer(message))
        }
        return Effect.map(Mailbox.make<Message>(), (inbox) => {
          const again = accounts.get(key)
          if (again !== undefined) {
            again.lastUsed = now
            return void again.inbox.unsafeOffer(message)
          }
          const account: Account = { inbox, batch: undefined, at: 0, lastUsed: now }
          accounts.set(key, account)
          inbox.unsafeOffer(message)
          fork(key, supervisor.supervise("account", key, actor(key, account)))
        })
      })

    /** Runs `effect` for the account in its actor, after the movements queued before it; the caller waits. */
    const serialize = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.uninterruptible(Effect.gen(function*() {
        const context = yield* Effect.context<R>()
        const refs = yield* Effect.getFiberRefs
        const done = yield* Deferred.make<readonly [Exit.Exit<A, E>, FiberRefs.FiberRefs]>()
        const job: Job = Effect.setFiberRefs(refs).pipe(
          Effect.zipRight(Effect.exit(Effect.provide(effect, context))),
          Effect.flatMap((exit) => Effect.map(Effect.getFiberRefs, (after) => [exit, after] as const)),
          Effect.flatMap((result) => Deferred.succeed(done, result))
        )
        yield* offer(key, { _tag: "Job", job })
        const [exit, after] = yield* Deferred.await(done)
        yield* Effect.inheritFiberRefs(after)
        return yield* exit
      }))

    return {
      serialize,
      /** the account has an actor */
      has: (key: string) => accounts.has(key),
      /** a defect in the account's actor (tests of supervision): it restarts and applies what is queued */
      crash: (key: string) => offer(key, { _tag: "Crash" })
    } as const
  })
}) {}
