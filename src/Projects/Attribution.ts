import type { Ids } from "@shoal/domain"
import { Work } from "@shoal/domain"
import { Effect, Option } from "effect"
import type { PeopleRepo } from "./PeopleRepo.js"

export interface Attribution {
  /** the user the write is attributed to, stored with the record */
  readonly id: Ids.UserId | null
  /** the answer's `warning` when a name was given but resolves to nobody */
  readonly warning: string | undefined
}

/**
 * `requested_by` / `requested_by_id` (a handle or a user id): who asked for the write. An unknown name does not
 * fail the write (the agent did the work either way); it is answered with a warning instead.
 */
export const resolveAttribution = (
  people: PeopleRepo,
  input: { readonly requested_by?: string | undefined; readonly requested_by_id?: string | undefined }
): Effect.Effect<Attribution> => {
  const given = input.requested_by_id ?? input.requested_by
  if (given === undefined) return Effect.succeed({ id: null, warning: undefined })
  return Effect.map(people.byIdOrHandle(given), (found) =>
    Option.match(found, {
      onNone: () => ({
        id: null,
        warning: `requested_by "${given}" does not name a user: the change was made, but the audit trail is not linked`
      }),
      onSome: (p) => ({ id: p.id, warning: undefined })
    }))
}

/** The `requested_by` object of a row that joined the attributed user as rb_id, rb_handle, rb_name. */
export const requestedBy = (
  row: { readonly rb_id: Ids.UserId | null; readonly rb_handle: Ids.Handle | null; readonly rb_name: string | null }
): Work.Person | undefined =>
  row.rb_id === null || row.rb_handle === null
    ? undefined
    : new Work.Person({ id: row.rb_id, handle: row.rb_handle, display_name: row.rb_name ?? "" }, true)
