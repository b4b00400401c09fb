import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The Gems ledger, double entry. Every user has three accounts (available, pending, escrow), made with the user by
 * a trigger so a movement never has to create one; three system accounts stand for Gems entering (mint) and leaving
 * (burn, expiry) circulation. A movement is one `gem_transactions` row whose `gem_entries` sum to zero; the balances
 * are kept on the accounts and only `mint` may go below zero. `credited`/`debited` keep the lifetime figures.
 * 0001's `gem_accounts` never held a row (nothing could move Gems), so it is replaced rather than altered.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
DROP TABLE gem_accounts;
CREATE TABLE gem_accounts (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  user_id uuid REFERENCES users (id),
  kind text NOT NULL CHECK (kind IN ('available', 'pending', 'escrow', 'mint', 'burn', 'expiry')),
  balance bigint NOT NULL DEFAULT 0,
  credited bigint NOT NULL DEFAULT 0,
  debited bigint NOT NULL DEFAULT 0,
  CHECK ((user_id IS NULL) = (kind IN ('mint', 'burn', 'expiry'))),
  CHECK (kind = 'mint' OR balance >= 0),
  CHECK (kind <> 'mint' OR balance <= 0)
);
CREATE UNIQUE INDEX gem_accounts_user_kind_idx ON gem_accounts (user_id, kind) WHERE user_id IS NOT NULL;
CREATE UNIQUE INDEX gem_accounts_system_idx ON gem_accounts (kind) WHERE user_id IS NULL;
INSERT INTO gem_accounts (kind) VALUES ('mint'), ('burn'), ('expiry');
INSERT INTO gem_accounts (user_id, kind)
  SELECT u.id, k.kind FROM users u CROSS JOIN (VALUES ('available'), ('pending'), ('escrow')) AS k (kind);

CREATE FUNCTION gem_accounts_for_new_user() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO gem_accounts (user_id, kind) VALUES (NEW.id, 'available'), (NEW.id, 'pending'), (NEW.id, 'escrow');
  RETURN NEW;
END
$$;
CREATE TRIGGER users_gem_accounts AFTER INSERT ON users FOR EACH ROW EXECUTE FUNCTION gem_accounts_for_new_user();

-- source: award, tip (transfer), redeem, bounty_funded, bounty_changed, bounty_pending, task_completion (approval),
-- bounty_rejected, bounty_cancelled, bounty_expired
CREATE TABLE gem_transactions (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  source text NOT NULL,
  actor_id uuid REFERENCES users (id),
  reference_id text,
  note text,
  created_at timestamptz NOT NULL
);
CREATE TABLE gem_entries (
  transaction_id uuid NOT NULL REFERENCES gem_transactions (id),
  txn_seq bigint NOT NULL,
  account_id bigint NOT NULL REFERENCES gem_accounts (id),
  amount bigint NOT NULL CHECK (amount <> 0),
  PRIMARY KEY (account_id, txn_seq)
);
CREATE INDEX gem_entries_transaction_idx ON gem_entries (transaction_id);

-- where a task's bounty is: escrow (the funder's), pending (the assignee's, since pending_since), paid, burned, expired
CREATE TABLE gem_bounties (
  task_id uuid PRIMARY KEY,
  funder_id uuid NOT NULL REFERENCES users (id),
  amount bigint NOT NULL CHECK (amount > 0),
  state text NOT NULL CHECK (state IN ('escrow', 'pending', 'paid', 'burned', 'expired')),
  assignee_id uuid REFERENCES users (id),
  pending_since timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX gem_bounties_pending_idx ON gem_bounties (pending_since) WHERE state = 'pending';

-- premium features bought with Gems; expires_at NULL = permanent
CREATE TABLE premium_features (
  user_id uuid NOT NULL REFERENCES users (id),
  feature_id text NOT NULL,
  expires_at timestamptz,
  transaction_id uuid NOT NULL REFERENCES gem_transactions (id),
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (user_id, feature_id)
);

CREATE TABLE gig_applications (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  task_id uuid NOT NULL REFERENCES tasks (id) ON DELETE CASCADE,
  applicant_id uuid NOT NULL REFERENCES users (id),
  message text NOT NULL DEFAULT '',
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'accepted', 'declined')),
  created_at timestamptz NOT NULL,
  UNIQUE (task_id, applicant_id)
);
CREATE INDEX gig_applications_task_idx ON gig_applications (task_id, created_at);
CREATE INDEX tasks_gigs_idx ON tasks (created_at DESC, id DESC) WHERE gem_bounty > 0 AND assigned_to_id IS NULL;
`).unprepared)
