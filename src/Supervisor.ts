import { Cause, Clock, Config, Duration, Effect, Metric, Option, Schedule, type Scope } from "effect"
import { actorRestarts } from "./Metrics/Metrics.js"

/** An actor that kept dying and was given up on: /health lists it. */
export interface StoppedActor {
  readonly kind: string
  readonly key: string
  readonly at: number
  readonly restarts: number
  readonly cause: string
}

export interface SuperviseOptions {
  /** runs once when the actor is given up on (e.g. close its sockets so their clients reconnect elsewhere) */
  readonly onStop?: Effect.Effect<void>
}

/**
 * Every long-running fiber of the process runs under `supervise`: a failure or defect is logged at Error with the
 * actor's kind and key, counted, and the actor is run again after an exponential backoff; its siblings never
 * notice. An actor that dies `ACTOR_MAX_RESTARTS` times without a healthy minute between is stopped and listed
 * (`stopped`, shown by /health). Interruption is a stop, not a death. Whatever must survive a restart lives outside
 * the fiber (the actor's state object, or Postgres), so running the effect again resumes where it was.
 *
 * `kind` names the owner and `key` the actor or loop ("agent"/<user id>, "dispatcher"/"events", "heartbeat"/"flush").
 * A loop handles its own typed errors (the database failing, `SqlError`: logged at Warning, tried again at its next
 * turn, never counted as a death, so an outage does not use up its restarts); only what escapes its type (a defect)
 * reaches the supervisor.
 */
export class Supervisor extends Effect.Service<Supervisor>()("Supervisor", {
  effect: Effect.gen(function*() {
    const maxRestarts = yield* Config.integer("ACTOR_MAX_RESTARTS").pipe(Config.withDefault(5))
    const base = yield* Config.duration("ACTOR_RESTART_BACKOFF").pipe(Config.withDefault(Duration.millis(100)))
    // alive this long before dying again: a fresh incident, so the backoff starts over
    const healthyAfter = Duration.toMillis(
      yield* Config.duration("ACTOR_HEALTHY_AFTER").pipe(Config.withDefault(Duration.minutes(1)))
    )
    const backoff = Schedule.exponential(base).pipe(
      Schedule.union(Schedule.spaced(Duration.seconds(30))),
      Schedule.intersect(Schedule.recurs(maxRestarts - 1))
    )
    const stopped = new Map<string, StoppedActor>()

    // what a dead actor's restarts need, made at its first death: a healthy actor carries one handler frame and
    // the arguments of its `supervise` call, no schedule, start time, log annotations or tagged counter
    // (thousands of agent actors live on a node; bench/README.md, "fanout")
    interface Dead<E, R> {
      readonly kind: string
      readonly key: string
      readonly actor: Effect.Effect<void, E, R>
      readonly options: SuperviseOptions | undefined
      readonly driver: Schedule.ScheduleDriver<unknown, unknown, never>
    }

    const attempt = <E, R>(dead: Dead<E, R>, restarts: number): Effect.Effect<void, never, R> =>
      Effect.flatMap(
        Clock.currentTimeMillis,
        (startedAt) =>
          Effect.catchAllCause(dead.actor, (cause) =>
            Cause.isInterruptedOnly(cause) ? Effect.interrupt : restart(dead, cause, startedAt, restarts))
      )

    // logs and counts a death, waits out the backoff, then runs the successor (none once given up on) after this
    // handler's frame, not inside it: an actor that dies every few minutes for days does not grow its fiber's stack
    const restart = <E, R>(
      dead: Dead<E, R>,
      cause: Cause.Cause<E>,
      startedAt: number,
      restarts: number
    ): Effect.Effect<void, never, R> =>
      Effect.gen(function*() {
        const { driver, key, kind, options } = dead
        const annotate = Effect.annotateLogs({ actor: kind, key })
        const now = yield* Clock.currentTimeMillis
        if (now - startedAt >= healthyAfter) yield* driver.reset
        yield* Effect.logError("actor died", cause).pipe(annotate)
        const next = yield* Effect.option(driver.next(undefined))
        if (Option.isNone(next)) {
          stopped.set(`${kind}/${key}`, { kind, key, at: now, restarts, cause: Cause.pretty(cause) })
          yield* Effect.logError(`actor stopped after ${restarts} restarts`).pipe(annotate)
          if (options?.onStop) yield* options.onStop
          return false
        }
        yield* Metric.update(actorRestarts.pipe(Metric.tagged("kind", kind)), 1)
        return true
      }).pipe(Effect.flatMap((again) => again ? attempt(dead, restarts + 1) : Effect.void))

    const supervise = <E, R>(
      kind: string,
      key: string,
      actor: Effect.Effect<void, E, R>,
      options?: SuperviseOptions
    ): Effect.Effect<void, never, R> =>
      Effect.catchAllCause(actor, (cause) =>
        Cause.isInterruptedOnly(cause) ?
          Effect.interrupt :
          // its first death starts a fresh schedule: there is nothing to reset, so its start time is not kept
          Effect.flatMap(
            Schedule.driver(backoff),
            (driver) => restart({ kind, key, actor, options, driver }, cause, Number.POSITIVE_INFINITY, 0)
          ))

    /** Same, for a loop that should never end by itself (a hub's sweep, the Wave clock). */
    const forever = <E, R>(kind: string, key: string, actor: Effect.Effect<void, E, R>) =>
      supervise(kind, key, Effect.forever(actor))

    /**
     * A periodic loop (a sweep, a check, a clock), forked into the caller's scope: `turn` every `interval`, spaced
     * from the end of one turn to the start of the next, the first after `first` (default `interval`). A turn's
     * typed error (the database failing, `SqlError`) is logged at Warning and tried again at the next turn; a
     * defect restarts the loop, which begins with its first wait again.
     */
    const every = <E, R>(
      kind: string,
      key: string,
      interval: Duration.DurationInput,
      turn: Effect.Effect<unknown, E, R>,
      options?: { readonly first?: Duration.DurationInput }
    ): Effect.Effect<void, never, R | Scope.Scope> =>
      turn.pipe(
        Effect.catchAll((e) => Effect.logWarning(`${kind} ${key} failed`, e)),
        Effect.repeat(Schedule.spaced(interval)),
        Effect.delay(options?.first ?? interval),
        (loop) => Effect.forkScoped(supervise(kind, key, loop)),
        Effect.asVoid
      )

    return {
      supervise,
      forever,
      every,
      /** actors given up on, oldest first */
      stopped: () => [...stopped.values()]
    } as const
  })
}) {}
