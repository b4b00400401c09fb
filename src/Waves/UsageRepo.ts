import { SqlClient, SqlSchema } from "@effect/sql"
import { Ids } from "@shoal/domain"
import { Effect, flow, Schema } from "effect"
import { IsoFromDate } from "../Projects/Times.js"

const Int = Schema.NumberFromString.pipe(Schema.int())
const totals = { input_tokens: Int, output_tokens: Int, total_tokens: Int, reports: Schema.Number }
const sums =
  `coalesce(sum(input_tokens), 0)::text AS input_tokens, coalesce(sum(output_tokens), 0)::text AS output_tokens,
  coalesce(sum(total_tokens), 0)::text AS total_tokens, count(*)::int AS reports`

export const UsageRow = Schema.Struct({
  id: Schema.String,
  model: Schema.String,
  provider: Schema.NullOr(Schema.String),
  input_tokens: Int,
  output_tokens: Int,
  total_tokens: Int,
  project_id: Schema.NullOr(Ids.ProjectId),
  task_id: Schema.NullOr(Ids.TaskId),
  created_at: IsoFromDate
})

/** A report as it is stored: the columns of `usage_reports`. */
type NewUsage = Omit<typeof UsageRow.Type, "id" | "created_at"> & {
  readonly user_id: Ids.UserId
  readonly created_at: Date
}

/** Token usage reports and their totals; `[from, to)` are instants. */
export class UsageRepo extends Effect.Service<UsageRepo>()("Waves/UsageRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const sumsSql = sql.literal(sums)

    const insert = flow(
      SqlSchema.single({
        Request: Schema.Any,
        Result: UsageRow,
        execute: (v: NewUsage) =>
          sql`INSERT INTO usage_reports ${sql.insert(v)}
          RETURNING id, model, provider, input_tokens::text, output_tokens::text, total_tokens::text, project_id,
            task_id, created_at`
      }),
      Effect.orDie
    )

    const summary = (user: Ids.UserId, from: Date, to: Date) =>
      Effect.gen(function*() {
        const where = sql`user_id = ${user} AND created_at >= ${from} AND created_at < ${to}`
        const decode = <F extends Schema.Struct.Fields>(fields: F) =>
          Schema.decodeUnknown(Schema.Array(Schema.Struct(fields)))
        const [all, byDay, byModel, byProject] = yield* Effect.all([
          sql`SELECT ${sumsSql} FROM usage_reports WHERE ${where}`,
          sql`SELECT to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${sumsSql}
            FROM usage_reports WHERE ${where} GROUP BY 1 ORDER BY 1`,
          sql`SELECT model, ${sumsSql} FROM usage_reports WHERE ${where} GROUP BY 1 ORDER BY 1`,
          sql`SELECT project_id, ${sumsSql} FROM usage_reports WHERE ${where} GROUP BY 1 ORDER BY 1 NULLS LAST`
        ])
        return {
          totals: (yield* decode(totals)(all))[0]!,
          by_day: yield* decode({ day: Schema.String, ...totals })(byDay),
          by_model: yield* decode({ model: Schema.String, ...totals })(byModel),
          by_project: yield* decode({ project_id: Schema.NullOr(Ids.ProjectId), ...totals })(byProject)
        }
      }).pipe(Effect.orDie)

    return { insert, summary } as const
  })
}) {}
