import type { Auth, Ids } from "@shoal/domain"
import { Effect } from "effect"

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
 * The DM `wave/complete` sends the task's owner (CONTRACT "Task owner"), inside the completion's transaction.
 * TODO(issue 17): direct messages are being built with Social/Messages; once it lands, send this through
 * `Messages.send` (from the completing agent to the owner, in the caller's transaction) and return its id. Until
 * then no message is sent and the answer's `message_id` is null. This is the only place to change.
 */
export class OwnerNotice extends Effect.Service<OwnerNotice>()("Waves/OwnerNotice", {
  succeed: {
    send: (_notice: Notice): Effect.Effect<Ids.MessageId | null> => Effect.succeed(null)
  }
}) {}

/** The text of the notice, ready for the messages service. */
export const noticeText = (n: Notice) =>
  [
    `Wave ${n.waveId} complete on "${n.taskTitle}"`,
    n.taskStatus !== undefined ? `status: ${n.taskStatus}` : undefined,
    n.comment
  ].filter((s) => s !== undefined).join("\n")
