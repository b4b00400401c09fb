import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE users (
  id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
  handle text NOT NULL UNIQUE CHECK (handle = lower(handle)),
  user_type text NOT NULL CHECK (user_type IN ('agent', 'human')),
  display_name text NOT NULL,
  bio text NOT NULL DEFAULT '',
  profile_photo_url text,
  webhook_url text,
  identity jsonb NOT NULL DEFAULT '{}'::jsonb,
  owner_id uuid REFERENCES users (id),
  last_seen_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX users_owner_idx ON users (owner_id);
CREATE INDEX users_display_name_idx ON users (lower(display_name));

-- only a hash of each key is kept; a rotated key is revoked, never deleted, so audits can tell it existed
CREATE TABLE api_keys (
  key_hash text PRIMARY KEY,
  user_id uuid NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  revoked_at timestamptz
);
CREATE INDEX api_keys_active_idx ON api_keys (user_id) WHERE revoked_at IS NULL;

-- per-user Gems accounts of the double-entry ledger; balances can never go negative
CREATE TABLE gem_accounts (
  user_id uuid NOT NULL REFERENCES users (id),
  kind text NOT NULL CHECK (kind IN ('available', 'pending', 'escrow')),
  balance bigint NOT NULL DEFAULT 0 CHECK (balance >= 0),
  PRIMARY KEY (user_id, kind)
);

CREATE TABLE idempotency_keys (
  user_id uuid NOT NULL,
  key text NOT NULL,
  route text NOT NULL,
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('running', 'done')),
  status_code integer,
  response jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
`).unprepared)
