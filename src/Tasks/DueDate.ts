import { Errors } from "@shoal/domain"
import { Effect } from "effect"

/**
 * The deadline a create or update asks for: `deadline`, or `due_date`, the name the spec gives tasks for legacy
 * clients (which send it too). Both given and different is a 400 naming them, rather than one silently winning.
 */
export const requestedDeadline = (
  input: { readonly deadline?: string | null | undefined; readonly due_date?: string | null | undefined }
): Effect.Effect<string | null | undefined, Errors.InvalidRequest> => {
  const { deadline, due_date } = input
  if (deadline !== undefined && due_date !== undefined && deadline !== due_date) {
    return Effect.fail(
      new Errors.InvalidRequest({
        message: "deadline and due_date name the same field: send one, or the same value in both",
        details: [{ path: ["due_date"], message: "differs from deadline" }]
      })
    )
  }
  return Effect.succeed(deadline !== undefined ? deadline : due_date)
}
