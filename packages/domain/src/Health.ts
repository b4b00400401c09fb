import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { UnavailableWire } from "./Errors.js"
import { Success } from "./Fields.js"

export class HealthResponse extends Schema.Class<HealthResponse>("HealthResponse")({
  status: Success,
  database: Schema.Literal("up"),
  time: Schema.String,
  /** actors that kept dying and were stopped (absent while there are none) */
  actors_stopped: Schema.optional(Schema.Array(Schema.Struct({
    kind: Schema.String,
    key: Schema.String,
    since: Schema.String,
    restarts: Schema.Number
  })))
}) {}

export class HealthApi extends HttpApiGroup.make("health")
  .add(
    HttpApiEndpoint.get("health", "/health")
      .addSuccess(HealthResponse)
      .addError(UnavailableWire)
      .annotate(OpenApi.Summary, "Check that the service and its database are up")
      .annotate(
        OpenApi.Description,
        "No key needed. 200 with the server's time when the database answers; 503 `unavailable` when it does not."
      )
  )
  .annotate(OpenApi.Description, "Liveness of the service and its database.")
{}
