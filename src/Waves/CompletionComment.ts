import type { Waves } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect } from "effect"

/**
 * The comment a Wave completion leaves on its task: `comment`, or `notes`, the name older plugins send. Both given
 * and different is a 400 naming them, rather than one silently winning (as for `deadline` and `due_date`).
 */
export const completionComment = (
  input: Pick<Waves.WaveComplete, "comment" | "notes">
): Effect.Effect<string | undefined, Errors.InvalidRequest> => {
  const { comment, notes } = input
  if (comment !== undefined && notes !== undefined && comment !== notes) {
    return Effect.fail(
      new Errors.InvalidRequest({
        message: "comment and notes name the same field: send one, or the same value in both",
        details: [{ path: ["notes"], message: "differs from comment" }]
      })
    )
  }
  return Effect.succeed(comment ?? notes)
}
