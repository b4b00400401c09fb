import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, ShoalApi, Waves as Api } from "@shoal/domain"
import { Effect } from "effect"
import { makeKeyCheck, makeKeyCheckNow } from "../Auth.js"
import { rateLimitHeaders } from "../Auth/RateLimiter.js"
import { authenticatedLane } from "../Http/FastLane.js"
import { type NodeLane, writeJson } from "../Http/FrontDoor.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { declaresBody } from "../Http/RequestChecks.js"
import { Waves } from "../Waves.js"
import { Usage } from "./Usage.js"

const slot = (s: typeof Api.Slot.Encoded) =>
  new Api.Slot(
    { ...s, task: s.task === null ? null : new Api.SlotTask(s.task as Api.SlotTask, true) } as Api.Slot,
    true
  )

type WithKey = { readonly headers: { readonly "idempotency-key"?: string | undefined } }

export const WavesPublicHttpLive = HttpApiBuilder.group(ShoalApi, "wavesPublic", (handlers) =>
  Effect.gen(function*() {
    const waves = yield* Waves
    return handlers.handle("waveStatus", () =>
      Effect.map(waves.status, (s) => new Api.WaveStatus({ status: "success", ...s }, true)))
  })).pipe(withOnly(Waves))

export const WavesHttpLive = HttpApiBuilder.group(ShoalApi, "waves", (handlers) =>
  Effect.gen(function*() {
    const waves = yield* Waves
    const usage = yield* Usage
    const caller = Auth.CurrentUser

    const complete = ({ payload }: { readonly payload: Api.WaveComplete } & WithKey) =>
      Effect.flatMap(caller, (c) => waves.complete(c, payload)).pipe(
        Effect.map((r) => new Api.WaveCompleted({ status: "success", ...r }, true))
      )

    return handlers
      .handle("checkIn", () =>
        Effect.flatMap(caller, waves.checkIn).pipe(
          Effect.map((r) => new Api.CheckedIn({ status: "success", ...r }, true))
        ))
      .handle("mySchedule", ({ urlParams }) =>
        Effect.flatMap(caller, (c) => waves.mySchedule(c, urlParams)).pipe(
          Effect.map((r) => new Api.ScheduleResponse({ status: "success", ...r, schedule: r.schedule.map(slot) }, true))
        ))
      .handle("setSlot", ({ path, payload }) =>
        Effect.flatMap(caller, (c) => waves.setSlot(c, path.agent, payload)).pipe(
          Effect.map((r) => new Api.SlotSet({ status: "success", ...r }, true))
        ))
      .handle("daySchedule", ({ path, urlParams }) =>
        Effect.flatMap(caller, (c) =>
          waves.daySchedule(c, path.agent, urlParams.date)).pipe(
            Effect.map((r) => new Api.DaySchedule({ status: "success", ...r, schedule: r.schedule.map(slot) }, true))
          ))
      .handle("completeWave", idempotent("completeWave", Api.WaveCompleted, complete))
      .handle("completeWaveMissionControl", idempotent("completeWave", Api.WaveCompleted, complete))
      .handle("heartbeat", () =>
        // written directly: the most frequent call skips the success schema's encode (the client still decodes it)
        Effect.flatMap(caller, waves.heartbeat).pipe(
          Effect.map((r) =>
            HttpServerResponse.unsafeJson({ status: "success", ...r })
          )
        ))
      .handle("fleet", () =>
        Effect.flatMap(caller, waves.fleet).pipe(
          Effect.map((fleet) =>
            new Api.Fleet({ status: "success", fleet: fleet.map((m) => new Api.FleetMember(m, true)) }, true)
          )
        ))
      .handle(
        "reportUsage",
        idempotent("reportUsage", Api.UsageRecorded, ({ payload }: { readonly payload: Api.UsageReport } & WithKey) =>
          Effect.flatMap(caller, (c) =>
            usage.report(c, payload)).pipe(
              Effect.map((u) =>
                new Api.UsageRecorded({ status: "success", usage: new Api.UsageRecord(u, true) }, true)
              )
            ))
      )
      .handle("usage", ({ urlParams }) =>
        Effect.flatMap(caller, (c) => usage.summary(c, urlParams)).pipe(
          Effect.map((r) =>
            new Api.UsageSummary({ status: "success", ...r, totals: new Api.UsageTotals(r.totals, true) }, true)
          )
        ))
  })).pipe(withOnly(Waves, Usage, Idempotency, Auth.Authentication))

/** The heartbeat's fast lane (src/Http/FastLane.ts): a call without a body, from a known key within its limit. */
export const HeartbeatLane = Effect.gen(function*() {
  const waves = yield* Waves
  return authenticatedLane(
    "POST",
    "/api/agent/heartbeat",
    yield* makeKeyCheck,
    ({ principal }) => Effect.map(waves.heartbeat(principal), (r) => ({ status: "success", ...r })),
    (request) => !declaresBody(request.headers)
  )
})

/**
 * The heartbeat at the front door (src/Http/FrontDoor.ts), ahead of even the fast lane: a call without a body from
 * a key whose principal is cached, within its limit, is an in-memory touch answered on Node's response. The rest
 * goes on to the fast lane and the general path.
 */
export const HeartbeatFrontLane = Effect.gen(function*() {
  const waves = yield* Waves
  const check = yield* makeKeyCheckNow
  const clock = yield* Effect.clock
  const lane: NodeLane = {
    method: "POST",
    path: "/api/agent/heartbeat",
    answer: (request, response) => {
      if (declaresBody(request.headers as Record<string, string | undefined>)) return false
      const now = clock.unsafeCurrentTimeMillis()
      const checked = check(request.headers, now)
      if (checked === undefined) return false
      writeJson(response, 200, rateLimitHeaders(checked.decision), {
        status: "success",
        ...waves.heartbeatAt(checked.principal, now)
      })
      return true
    }
  }
  return lane
})
