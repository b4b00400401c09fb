import { HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { UnavailableWire } from "./Errors.js"
import { Success } from "./Fields.js"

export class HealthResponse extends Schema.Class<HealthResponse>("HealthResponse")({
  status: Success,
  database: Schema.Literal("up"),
  time: Schema.String
}) {}

export class HealthApi extends HttpApiGroup.make("health").add(
  HttpApiEndpoint.get("health", "/health").addSuccess(HealthResponse).addError(UnavailableWire)
) {}
