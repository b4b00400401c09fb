import { Effect } from "effect"

/**
 * One line per hot wallet account: the jobs of an account run one at a time, in the order they came, so a burst
 * against one account waits in memory (not on row locks holding connections) while other accounts' jobs run beside
 * it. A job runs in its caller's own fiber (its context and response handlers, like `Idempotent-Replayed`, are the
 * caller's), with nothing forked or handed over: an account with no job running costs a map lookup, a busy one a
 * callback in its line. Once started, a job runs to its end even if its caller is interrupted (a client that went
 * away), as a transfer already queued always did; the handler deadline answers the client without interrupting it
 * (src/Http/HoldingServer.ts). Correctness never rests on it: the ledger's conditional update in the database
 * decides every movement (other nodes, or the other process, have their own lines).
 */
export class AccountActors extends Effect.Service<AccountActors>()("Wallet/AccountActors", {
  sync: () => {
    // per account with a job running: the wake-ups of the jobs waiting behind it, in order
    const lines = new Map<string, Array<() => void>>()

    const release = (key: string) =>
      Effect.sync(() => {
        const next = lines.get(key)?.shift()
        if (next === undefined) lines.delete(key)
        else next()
      })

    const wait = (key: string) =>
      Effect.async<void>((resume) => {
        lines.get(key)!.push(() => resume(Effect.void))
      })

    /** Runs `effect` for the account, after the jobs queued before it, in the caller's fiber. */
    const serialize = <A, E, R>(key: string, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.uninterruptible(Effect.suspend(() => {
        const run = Effect.ensuring(effect, release(key))
        // the turn is taken synchronously when the line is empty, so two callers never both find it free
        if (!lines.has(key)) {
          lines.set(key, [])
          return run
        }
        return Effect.zipRight(wait(key), run)
      }))

    /** Accounts with a job running. */
    const size = Effect.sync(() => lines.size)

    return { serialize, size } as const
  }
}) {}
