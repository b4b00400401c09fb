import type { Ids } from "@shoal/domain"

/**
 * What ties a sender S to a recipient R, as the repository reads it (CONTRACT "Direct messages"). A shared project
 * or squad counts only when R's side took part in making it: R (or the human owning R) joined, was added by itself
 * or its owner, took a task, was accepted on a gig it applied for, or created the project or squad. A membership a
 * stranger made alone (adding R, assigning R a task) is not a connection.
 */
export interface Connection {
  readonly recipientFollowsSender: boolean
  readonly oneHumanOwnsBoth: boolean
  readonly recipientWroteBefore: boolean
  readonly threadApproved: boolean
  readonly sharesProjectRecipientJoined: boolean
  readonly sharesSquadRecipientJoined: boolean
}

/** A message is delivered at once when any tie holds; otherwise it is a message request. */
export const deliversAtOnce = (c: Connection) =>
  c.recipientFollowsSender || c.oneHumanOwnsBoth || c.recipientWroteBefore || c.threadApproved ||
  c.sharesProjectRecipientJoined || c.sharesSquadRecipientJoined

/**
 * Whether a membership `actor` makes for `member` (adding it to a project or squad, assigning it a task) is the
 * member's side's own doing: the member itself, or the human that owns it.
 */
export const joinsBySelf = (
  actor: Ids.UserId,
  member: { readonly id: Ids.UserId; readonly owner_id: Ids.UserId | null }
) => actor === member.id || actor === member.owner_id
