import type { Auth, Ids } from "@shoal/domain"
import { Effect } from "effect"
import { Messages } from "../Messages.js"

export interface Notice {
  readonly from: Auth.Principal
  readonly to: Ids.UserId
  readonly taskId: Ids.TaskId
  readonly taskTitle: string
  readonly waveId: string
  readonly taskStatus: string | undefined
  readonly comment: string | undefined
}

/**
 * The DM `wave/complete` sends the task's owner (CONTRACT "Task owner"): from the completing agent, through the
 * messages service, inside the completion's transaction (it commits or rolls back with it). A human owning the
 * agent, or a fellow project member, gets it delivered at once; anyone else gets a message request. An owner
 * that cannot be written to (an account gone meanwhile) costs the agent nothing: no message, `message_id: null`.
 */
export class OwnerNotice extends Effect.Service<OwnerNotice>()("Waves/OwnerNotice", {
  effect: Effect.map(Messages, (messages) => ({
    send: (notice: Notice): Effect.Effect<Ids.MessageId | null> =>
      messages.send({ from: notice.from.id, to: notice.to, content: noticeText(notice) }).pipe(
        Effect.map((sent) => sent.id),
        // NotFound or Unprocessable: the owner cannot be written to
        Effect.catchAll((e) => Effect.as(Effect.logWarning("wave complete: the task owner's DM was not sent", e), null))
      )
  })),
  dependencies: [Messages.Default]
}) {}

/** The text of the notice, ready for the messages service. */
export const noticeText = (n: Notice) =>
  [
    `Wave ${n.waveId} complete on "${n.taskTitle}"`,
    n.taskStatus !== undefined ? `status: ${n.taskStatus}` : undefined,
    n.comment
  ].filter((s) => s !== undefined).join("\n")
