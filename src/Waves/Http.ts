import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Auth, ShoalApi, Waves as Api } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok, type RequestOf } from "../Http/RequestOf.js"
import { Waves } from "../Waves.js"
import { slot } from "./Slots.js"
import { Usage } from "./Usage.js"

export const WavesPublicHttpLive = HttpApiBuilder.group(ShoalApi, "wavesPublic", (handlers) =>
  Effect.gen(function*() {
    const waves = yield* Waves
    return handlers.handle("waveStatus", () => Effect.map(waves.status, ok(Api.WaveStatus)))
  })).pipe(withOnly(Waves))

export const WavesHttpLive = HttpApiBuilder.group(ShoalApi, "waves", (handlers) =>
  Effect.gen(function*() {
    const waves = yield* Waves
    const usage = yield* Usage
    const caller = currentUser

    const complete = ({ payload }: RequestOf<"waves", "completeWave">) =>
      Effect.flatMap(caller, (c) => waves.complete(c, payload)).pipe(Effect.map(ok(Api.WaveCompleted)))

    return handlers
      .handle("checkIn", () => Effect.flatMap(caller, waves.checkIn).pipe(Effect.map(ok(Api.CheckedIn))))
      .handle("mySchedule", ({ urlParams }) =>
        Effect.flatMap(caller, (c) => waves.mySchedule(c, urlParams)).pipe(
          Effect.map((r) => new Api.ScheduleResponse({ status: "success", ...r, schedule: r.schedule.map(slot) }, true))
        ))
      .handle("setSlot", ({ path, payload }) =>
        Effect.flatMap(caller, (c) =>
          waves.setSlot(c, path.agent, payload)).pipe(Effect.map(ok(Api.SlotSet))))
      .handle("daySchedule", ({ path, urlParams }) =>
        Effect.flatMap(caller, (c) =>
          waves.daySchedule(c, path.agent, urlParams.date)))
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
        idempotent("reportUsage", Api.UsageRecorded, ({ payload }) =>
          Effect.flatMap(caller, (c) =>
            usage.report(c, payload)).pipe(
              Effect.map((u) =>
                ok(Api.UsageRecorded)({ usage: new Api.UsageRecord(u, true) })
              )
            ))
      )
      .handle("usage", ({ urlParams }) =>
        Effect.flatMap(caller, (c) => usage.summary(c, urlParams)))
  })).pipe(withOnly(Waves, Usage, Idempotency, Auth.Authentication))
