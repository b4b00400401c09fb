import { SqlClient, SqlSchema } from "@effect/sql"
import { Errors, Ids } from "@shoal/domain"
import { Effect, flow, Option, Schema } from "effect"

export const PersonRow = Schema.Struct({
  id: Ids.UserId,
  handle: Ids.Handle,
  display_name: Schema.String,
  user_type: Ids.UserType,
  owner_id: Schema.NullOr(Ids.UserId)
})
export type PersonRow = typeof PersonRow.Type

/** The 404 of a handle no account has, as every feature that looks one up answers it. */
export const noUserWithHandle = (handle: string) => new Errors.NotFound({ message: `no user with handle "${handle}"` })

export const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

/** Users as projects and tasks name them: by handle (assignees, participants) or by id or handle (attribution). */
export class PeopleRepo extends Effect.Service<PeopleRepo>()("Projects/PeopleRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    const byHandle = flow(
      SqlSchema.findOne({
        Request: Schema.String,
        Result: PersonRow,
        execute: (handle) =>
          sql`SELECT id, handle, display_name, user_type, owner_id FROM users WHERE handle = ${handle.toLowerCase()}`
      }),
      Effect.orDie
    )

    const byId = flow(
      SqlSchema.findOne({
        Request: Ids.UserId,
        Result: PersonRow,
        execute: (id) => sql`SELECT id, handle, display_name, user_type, owner_id FROM users WHERE id = ${id}`
      }),
      Effect.orDie
    )

    /** A uuid is looked up as an id, anything else as a handle. */
    const byIdOrHandle = (value: string): Effect.Effect<Option.Option<PersonRow>> =>
      uuid.test(value) ? byId(value.toLowerCase() as Ids.UserId) : byHandle(value.trim())

    /** The user with the handle, or a 404 naming it. */
    const named = (handle: string) =>
      Effect.flatMap(byHandle(handle), Effect.orElseFail(() => noUserWithHandle(handle)))

    return { byHandle, byId, byIdOrHandle, named } as const
  })
}) {}
