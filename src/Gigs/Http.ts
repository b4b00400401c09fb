import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Auth, Gigs as Api, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { currentUser } from "../Auth/Caller.js"
import { Gigs } from "../Gigs.js"
import { Idempotency, idempotent } from "../Http/Idempotency.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"

export const GigsPublicHttpLive = HttpApiBuilder.group(ShoalApi, "gigsPublic", (handlers) =>
  Effect.gen(function*() {
    const gigs = yield* Gigs
    return handlers.handle("listGigs", ({ urlParams }) => gigs.list(urlParams))
  })).pipe(withOnly(Gigs))

export const GigsHttpLive = HttpApiBuilder.group(ShoalApi, "gigs", (handlers) =>
  Effect.gen(function*() {
    const gigs = yield* Gigs
    const application = (r: ConstructorParameters<typeof Api.Application>[0]) => new Api.Application(r, true)
    return handlers
      .handle(
        "applyGig",
        idempotent("applyGig", Api.ApplicationResponse, ({ path, payload }) =>
          Effect.flatMap(currentUser, (c) =>
            gigs.apply(c, path.task_id, payload)))
      )
      .handle("listApplications", ({ path }) =>
        Effect.flatMap(currentUser, (c) =>
          gigs.applications(c, path.task_id)).pipe(
            Effect.map((rows) =>
              ok(Api.ApplicationList)({ task_id: path.task_id, applications: rows.map(application) })
            )
          ))
      .handle("acceptApplication", ({ path }) =>
        Effect.flatMap(currentUser, (c) =>
          gigs.accept(c, path.task_id, path.application_id)).pipe(
            Effect.map((a) =>
              ok(Api.Accepted)({ task_id: path.task_id, assigned_to_id: a.applicant_id, application: application(a) })
            )
          ))
  })).pipe(withOnly(Gigs, Idempotency, Auth.Authentication))
