import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SqlClient } from "@effect/sql"
import { Errors, Health, ShoalApi } from "@shoal/domain"
import { DateTime, Duration, Effect, Layer } from "effect"
import { deadlineError, describeReason, retryAfterSeconds, unavailableReason } from "./Database/Unavailable.js"
import { HealthRepo } from "./Health/Repo.js"
import { withOnly } from "./Http/LeanContext.js"
import { Supervisor } from "./Supervisor.js"

/** However slow the database, `/health` answers within this. */
const deadline = Duration.seconds(1)

const down = (e: unknown) => {
  const reason = unavailableReason(e)
  const message = reason === "timeout"
    ? `the database did not answer within ${Duration.format(deadline)}`
    : reason === "unreachable"
    ? describeReason(reason)
    : "the database failed to answer"
  return Effect.zipRight(
    HttpApp.appendPreResponseHandler((_req, res) =>
      Effect.succeed(HttpServerResponse.setHeader(res, "retry-after", String(retryAfterSeconds)))
    ),
    new Errors.Unavailable({ message, details: { database: "down", reason: reason ?? "error" } })
  )
}

/**
 * `/health` answers 200 only while the database answers, and 503 saying why within a second when it does not. It
 * lists the actors the supervisor gave up on (src/Supervisor.ts): the process serves, but part of it does not.
 */
export const HealthHttpLive = HttpApiBuilder.group(ShoalApi, "health", (handlers) =>
  Effect.gen(function*() {
    const repo = yield* HealthRepo
    const supervisor = yield* Supervisor
    return handlers.handle("health", () =>
      repo.ping.pipe(
        // a statement interrupted on a server waits for its cancellation, which a hung server never answers
        Effect.disconnect,
        Effect.timeoutFail({ duration: deadline, onTimeout: () => deadlineError("the health check", deadline) }),
        Effect.zipRight(DateTime.now),
        Effect.map((now) => {
          const stopped = supervisor.stopped()
          return new Health.HealthResponse({
            status: "success",
            database: "up",
            time: DateTime.formatIso(now),
            ...(stopped.length === 0 ? {} : {
              actors_stopped: stopped.map((a) => ({
                kind: a.kind,
                key: a.key,
                since: new Date(a.at).toISOString(),
                restarts: a.restarts
              }))
            })
          })
        }),
        Effect.catchAll(down)
      ))
  })).pipe(Layer.provide(HealthRepo.Default), withOnly(SqlClient.SqlClient, Supervisor))
