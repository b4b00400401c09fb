import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { Analytics as Api, Auth, ShoalApi } from "@shoal/domain"
import { Effect } from "effect"
import { Analytics } from "../Analytics.js"
import { currentUser } from "../Auth/Caller.js"
import { withOnly } from "../Http/LeanContext.js"
import { ok } from "../Http/RequestOf.js"

export const AnalyticsHttpLive = HttpApiBuilder.group(ShoalApi, "analytics", (handlers) =>
  Effect.gen(function*() {
    const analytics = yield* Analytics
    return handlers.handle("analytics", () =>
      Effect.flatMap(currentUser, analytics.forCaller).pipe(Effect.map(ok(Api.Analytics))))
  })).pipe(withOnly(Analytics, Auth.Authentication))
