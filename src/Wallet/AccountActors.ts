import { Chunk, Clock, Config, Deferred, Duration, Effect, FiberMap, Mailbox, Option } from "effect"
import { Supervisor } from "../Supervisor.js"

/**
 * A message in an account's inbox: a movement's turn (the actor opens `start`; the movement, run by its caller, closes
 * `done` when it ends), an idle check from the janitor, or a defect (tests).
 */
type Message =
  | { readonly _tag: "Turn"; readonly start: Deferred.Deferred<void>; readonly done: Deferred.Deferred<void> }
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
 * `FiberMap` keyed by account, with an inbox of movements it lets through one at a time in the order they came, so a
 * burst against one account waits in memory (not on row locks holding connections) while other accounts' actors
 * run beside it. An actor unused for `ACCOUNT_ACTOR_IDLE` ends and leaves nothing behind.
 *
 * The actor gives each movement its turn and waits for it to end; the movement runs on its caller's fiber, with the
 * caller's own context and response handlers (bench/README.md, "wallet": not carried into the actor and back).
 * Once queued, a movement runs to its end even if its caller is interrupted (a client that went away); the handler
 * deadline answers the client without interrupting it (src/Http/HoldingServer.ts). Correctness never rests on the
 * actor: the ledger's conditional update in the database decides every movement (other nodes, or the other process,
 * have their own actors).
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

    /** The actor's loop: each queued movement's turn, in order; end at an idle check with nothing queued behind it. */
    const actor = (key: string, account: Account): Effect.Effect<void> =>
      Effect.gen(function*() {
        while (true) {
          if (account.batch === undefined) {
            const [messages] = yield* account.inbox.takeAll
            account.batch = Chunk.toReadonlyArray(messages)
            account.at = 0
          }
          const batch = account.batch
          while (account.at < batch.length) {
            // past it before acting on it: a message that kills the actor is not acted on again by its successor
            const m = batch[account.at++]!
            if (m._tag === "Crash") return yield* Effect.die(new Error(`injected defect in account ${key}'s actor`))
            if (m._tag === "Turn") {
              yield* Deferred.succeed(m.start, undefined)
              yield* Deferred.await(m.done)
            } else if (
              // decided synchronously: a caller either found this actor before it left (and is behind this check) or
              // finds none and starts a fresh one
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

    /** Runs `effect` in the account's turn, after the movements queued before it. */
    const serialize = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.uninterruptible(Effect.gen(function*() {
        const [start, done] = [yield* Deferred.make<void>(), yield* Deferred.make<void>()]
        yield* offer(key, { _tag: "Turn", start, done })
        yield* Deferred.await(start)
        return yield* Effect.ensuring(effect, Deferred.succeed(done, undefined))
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
