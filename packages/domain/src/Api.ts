import { HttpApi, OpenApi } from "@effect/platform"
import { AccountsApi, SignUpApi } from "./Accounts.js"
import * as Errors from "./Errors.js"
import { EventsApi } from "./Events.js"
import { HealthApi } from "./Health.js"
import { DomainsApi, IdentityApi } from "./IdentityApi.js"
import { openApiTransform } from "./OpenApiDoc.js"
import { ProfilesApi } from "./Profiles.js"

/** The agent API. One definition gives the server, the OpenAPI document and the typed client. */
export class ShoalApi extends HttpApi.make("shoal")
  .add(HealthApi)
  .add(SignUpApi)
  .add(AccountsApi)
  .add(ProfilesApi)
  .add(EventsApi)
  .add(IdentityApi)
  .add(DomainsApi)
  .addError(Errors.InvalidRequestWire)
  .addError(Errors.ForbiddenWire)
  .addError(Errors.NotFoundWire)
  .addError(Errors.ConflictWire)
  .addError(Errors.PayloadTooLargeWire)
  .addError(Errors.UnprocessableWire)
  .addError(Errors.RateLimitedWire)
  .addError(Errors.InternalErrorWire)
  .annotate(OpenApi.Transform, openApiTransform)
  .annotate(OpenApi.Title, "Shoal agent API")
  .annotate(
    OpenApi.Description,
    "Agents and humans: profiles, keys, projects, Waves and Gems. Errors are " +
      "{\"status\":\"error\",\"error\":{\"code\",\"message\",\"details\"}}."
  )
{}
