import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A human's Gems transactions (src/Wallet/LedgerRepo.ts, `ownerEntries`) find its awards by actor and its bounties'
 * releases and burns by funder and task. Partial: transfers and redemptions, the bulk of the ledger, skip them.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE INDEX gem_transactions_award_actor_idx ON gem_transactions (actor_id) WHERE source = 'award';
CREATE INDEX gem_transactions_bounty_reference_idx ON gem_transactions (reference_id)
  WHERE source IN ('task_completion', 'bounty_cancelled', 'bounty_expired');
CREATE INDEX gem_bounties_funder_idx ON gem_bounties (funder_id);
`).unprepared)
