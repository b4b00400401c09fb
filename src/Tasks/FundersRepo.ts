import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, Option, Schema } from "effect"

/** Who funds a task's bounty: the human whose escrow holds it, not necessarily the task's creator. */
export class FundersRepo extends Effect.Service<FundersRepo>()("Tasks/FundersRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const funderOf = SqlSchema.findOne({
      Request: Ids.TaskId,
      Result: Schema.Struct({ funder_id: Ids.UserId }),
      execute: (task) => sql`SELECT funder_id FROM gem_bounties WHERE task_id = ${task}`
    })

    return {
      funderOf: (task: Ids.TaskId) => Effect.map(Effect.orDie(funderOf(task)), Option.map((r) => r.funder_id))
    } as const
  })
}) {}
