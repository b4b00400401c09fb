import { SqlClient, SqlSchema } from "@effect/sql"
import { Errors, Ids, Teams } from "@shoal/domain"
import { Effect, flow, Option, Schema } from "effect"
import { memberAdder } from "../Database/SqlHelpers.js"
import { IsoFromDate } from "../Projects/Times.js"

const TeamRow = Schema.Struct({
  id: Ids.TeamId,
  name: Schema.String,
  handle: Schema.NullOr(Schema.String),
  description: Schema.String,
  type: Schema.Literal("squad"),
  created_by: Ids.UserId,
  created_at: IsoFromDate,
  member_count: Schema.Number
})

const TeamMemberRow = Schema.Struct({
  id: Ids.UserId,
  handle: Schema.String,
  display_name: Schema.String,
  type: Ids.UserType,
  user_type: Ids.UserType,
  role: Teams.TeamRole,
  joined_at: IsoFromDate
})

export class TeamsRepo extends Effect.Service<TeamsRepo>()("Teams/Repo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = sql.literal(
      `t.id, t.name, t.handle, t.description, t.type, t.created_by, t.created_at AS created_at,
      (SELECT count(*)::int FROM team_members c WHERE c.team_id = t.id) AS member_count`
    )

    const find = flow(
      SqlSchema.findOne({
        Request: Ids.TeamId,
        Result: TeamRow,
        execute: (id) => sql`SELECT ${columns} FROM teams t WHERE t.id = ${id}`
      }),
      Effect.orDie
    )

    /** The squad, or a 404. */
    const existing = (id: Ids.TeamId) =>
      Effect.flatMap(find(id), Effect.orElseFail(() => new Errors.NotFound({ message: `no squad with id ${id}` })))

    const list = (caller: Ids.UserId, mine: boolean) =>
      SqlSchema.findAll({
        Request: Schema.Void,
        Result: TeamRow,
        execute: () =>
          mine
            ? sql`SELECT ${columns} FROM teams t
                  WHERE EXISTS (SELECT 1 FROM team_members m WHERE m.team_id = t.id AND m.user_id = ${caller})
                  ORDER BY t.created_at DESC LIMIT 200`
            : sql`SELECT ${columns} FROM teams t ORDER BY t.created_at DESC LIMIT 200`
      })(undefined).pipe(Effect.orDie)

    const members = flow(
      SqlSchema.findAll({
        Request: Ids.TeamId,
        Result: TeamMemberRow,
        execute: (id) =>
          sql`SELECT u.id, u.handle, u.display_name, u.user_type AS type, u.user_type, m.role, m.created_at AS joined_at
            FROM team_members m JOIN users u ON u.id = m.user_id WHERE m.team_id = ${id}
            ORDER BY (m.role = 'owner') DESC, m.created_at, u.handle`
      }),
      Effect.orDie
    )

    /** `None` when the handle is taken by another squad. */
    const insert = (
      v: { name: string; handle: string | null; description: string; created_by: Ids.UserId; created_at: Date }
    ) =>
      Effect.gen(function*() {
        const rows = yield* sql<{ id: Ids.TeamId }>`
          INSERT INTO teams ${sql.insert(v)} ON CONFLICT (handle) DO NOTHING RETURNING id`
        if (rows.length === 0) return Option.none<Ids.TeamId>()
        yield* sql`INSERT INTO team_members (team_id, user_id, role, consented, created_at)
                   VALUES (${rows[0]!.id}, ${v.created_by}, 'owner', true, ${v.created_at})`
        return Option.some(rows[0]!.id)
      }).pipe(Effect.orDie)

    const roleOf = (team: Ids.TeamId, user: Ids.UserId) =>
      Effect.map(
        sql<{ role: "owner" | "admin" | "member" }>`
          SELECT role FROM team_members WHERE team_id = ${team} AND user_id = ${user}`,
        (rows) => Option.fromNullable(rows[0]?.role)
      ).pipe(Effect.orDie)

    /** Whether any of the users is a member of the team. */
    const anyMember = (team: Ids.TeamId, users: ReadonlyArray<Ids.UserId>) =>
      Effect.map(
        sql<{ n: number }>`SELECT count(*)::int AS n FROM team_members
                           WHERE team_id = ${team} AND user_id IN ${sql.in(users)}`,
        (rows) => rows[0]!.n > 0
      ).pipe(Effect.orDie)

    const addMember = memberAdder(sql, "team_members", "team_id", "admin")

    const removeMember = (team: Ids.TeamId, user: Ids.UserId) =>
      sql`DELETE FROM team_members WHERE team_id = ${team} AND user_id = ${user}`.pipe(Effect.orDie)

    return { existing, list, members, insert, roleOf, anyMember, addMember, removeMember } as const
  })
}) {}
