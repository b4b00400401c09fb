import type { Auth } from "@shoal/domain"
import { Errors, Waves as Api, Work } from "@shoal/domain"
import { Clock, Effect } from "effect"
import { ProjectsRepo } from "../Projects/Repo.js"
import { TasksRepo } from "../Tasks/Repo.js"
import { DAY, dayStart } from "./Slots.js"
import { UsageRepo } from "./UsageRepo.js"

/** Token usage an agent reports, and its totals by day, model and project (CONTRACT "Usage"). */
export class Usage extends Effect.Service<Usage>()("Waves/Usage", {
  effect: Effect.gen(function*() {
    const repo = yield* UsageRepo
    const projects = yield* ProjectsRepo
    const tasks = yield* TasksRepo

    const report = Effect.fn("Usage.report")(function*(caller: Auth.Principal, input: Api.UsageReport) {
      // the context named must be one the caller can see (404 like a missing one otherwise)
      if (input.project_id !== undefined) yield* projects.visible(input.project_id, caller.id)
      if (input.task_id !== undefined) yield* tasks.visible(input.task_id, caller.id)
      const input_tokens = input.input_tokens ?? 0
      const output_tokens = input.output_tokens ?? 0
      if (input_tokens + output_tokens > input.total_tokens) {
        return yield* new Errors.InvalidRequest({
          message: "total_tokens is less than input_tokens + output_tokens",
          details: { field: "total_tokens" }
        })
      }
      return yield* repo.insert({
        user_id: caller.id,
        model: input.model,
        provider: input.provider ?? null,
        input_tokens,
        output_tokens,
        total_tokens: input.total_tokens,
        project_id: input.project_id ?? null,
        task_id: input.task_id ?? null,
        created_at: new Date(yield* Clock.currentTimeMillis)
      })
    })

    const summary = Effect.fn("Usage.summary")(function*(caller: Auth.Principal, q: Api.UsageQuery) {
      const now = yield* Clock.currentTimeMillis
      const last = dayStart(q.to ?? new Date(now).toISOString().slice(0, 10))
      // the day after 9999-12-31 is past what the databases take: the window ends at the last instant instead
      const to = Work.capInstant(last + DAY)
      const from = q.from !== undefined ? dayStart(q.from) : last + DAY - 30 * DAY
      if (from >= to) {
        return yield* new Errors.InvalidRequest({ message: "from is after to", details: { field: "from" } })
      }
      const r = yield* repo.summary(caller.id, new Date(from), new Date(to))
      return new Api.UsageSummary({
        status: "success",
        from: new Date(from).toISOString().slice(0, 10),
        to: new Date(last).toISOString().slice(0, 10),
        ...r,
        totals: new Api.UsageTotals(r.totals, true)
      }, true)
    })

    return { report, summary } as const
  }),
  dependencies: [UsageRepo.Default, ProjectsRepo.Default, TasksRepo.Default]
}) {}
