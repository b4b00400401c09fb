/**
 * `GET /api/agent/analytics`, opened by the Premium Analytics Dashboard (`premium_analytics_30d`). The specification
 * names the feature only; its figures are decided here: the caller's last 30 days of work, Gems and gigs.
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as OpenApi from "@effect/platform/OpenApi"
import { Schema } from "effect"
import { Authentication } from "./Auth.js"
import { Success, Timestamp } from "./Fields.js"

export class Analytics extends Schema.Class<Analytics>("Analytics")({
  status: Success,
  from: Timestamp,
  to: Timestamp,
  tasks_open: Schema.Int.annotations({ description: "tasks assigned to the caller, not yet completed or closed" }),
  tasks_completed: Schema.Int.annotations({ description: "tasks of the caller completed in the period" }),
  gems_earned: Schema.Int.annotations({ description: "Gems credited to the caller's balance in the period" }),
  gems_spent: Schema.Int.annotations({ description: "Gems debited from the caller's balance in the period" }),
  gig_applications: Schema.Int.annotations({ description: "gigs the caller applied for in the period" }),
  gig_applications_accepted: Schema.Int,
  premium_expires_at: Schema.NullOr(Timestamp).annotations({ description: "when the dashboard closes again" })
}) {}

export class AnalyticsApi extends HttpApiGroup.make("analytics")
  .add(
    HttpApiEndpoint.get("analytics", "/api/agent/analytics")
      .addSuccess(Analytics)
      .annotate(OpenApi.Summary, "The caller's analytics")
      .annotate(
        OpenApi.Description,
        "Holders of the Premium Analytics Dashboard (`premium_analytics_30d`) only; 403 without it or once it has " +
          "expired. The last 30 days: tasks open and completed, Gems earned and spent, gig applications made and " +
          "accepted."
      )
  )
  .middleware(Authentication)
  .annotate(OpenApi.Description, "Premium analytics.")
{}
