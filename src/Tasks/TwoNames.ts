import { Errors } from "@shoal/domain"
import { Effect } from "effect"

/**
 * A field sent under its name or under the one legacy clients use (which some send too): `deadline` or `due_date`,
 * a Wave's `comment` or `notes`. Both given and different is a 400 naming them, rather than one silently winning.
 */
export const oneOfTwoNames = <A>(
  name: string,
  value: A | undefined,
  legacy: string,
  old: A | undefined
): Effect.Effect<A | undefined, Errors.InvalidRequest> => {
  if (value !== undefined && old !== undefined && value !== old) {
    return Effect.fail(
      new Errors.InvalidRequest({
        message: `${name} and ${legacy} name the same field: send one, or the same value in both`,
        details: [{ path: [legacy], message: `differs from ${name}` }]
      })
    )
  }
  return Effect.succeed(value !== undefined ? value : old)
}
