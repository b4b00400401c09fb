import { Rpc, RpcGroup } from "@effect/rpc"
import { Schema } from "effect"
import { Conflict } from "./Errors.js"
import { TaskId, UserId } from "./Ids.js"

const Amount = Schema.Number.pipe(Schema.int(), Schema.between(0, 1_000_000_000))
const note = Schema.optional(Schema.String)

/**
 * What the agent API asks of the wallet: the Gem side of a task's bounty. In one process these are plain calls in
 * the task's own transaction; with the wallet in its own process (`--only wallet`), the same requests go over HTTP
 * to its `/rpc`. Each acts only from the bounty state it finds, so a retried request moves nothing twice.
 */
export class WalletRpcs extends RpcGroup.make(
  /** Sets the task's bounty (0 removes it), minted into the funder's escrow; Conflict once it left escrow. */
  Rpc.make("BountyFund", {
    payload: { task_id: TaskId, funder_id: UserId, amount: Amount },
    error: Conflict
  }),
  /** Completion: escrow → the assignee's pending. */
  Rpc.make("BountyComplete", { payload: { task_id: TaskId, assignee_id: UserId } }),
  /** Approval: pending → the assignee's balance; the amount paid. `note` is the ledger entry's. */
  Rpc.make("BountyApprove", { payload: { task_id: TaskId, user_id: UserId, note }, success: Amount, error: Conflict }),
  /** Rejection: pending → back to the funder's escrow; the amount. `note` is the ledger entry's. */
  Rpc.make("BountyReject", { payload: { task_id: TaskId, user_id: UserId, note }, success: Amount, error: Conflict }),
  /** Cancellation or archiving: the bounty is burned. */
  Rpc.make("BountyBurn", { payload: { task_id: TaskId, user_id: UserId } })
) {}
