import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- the Ed25519 key that signs identity proofs, made once on first start (unless IDENTITY_SIGNING_KEY is set);
-- the unique index on the active row lets several nodes race to create it and agree on the winner
CREATE TABLE identity_signing_keys (
  kid text PRIMARY KEY,
  private_pkcs8 text NOT NULL,
  public_x text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  retired_at timestamptz
);
CREATE UNIQUE INDEX identity_signing_keys_one_active ON identity_signing_keys ((true)) WHERE retired_at IS NULL;

-- naming-system domain settings, per user: ownership of a tld is not provable here, so nobody can claim one for all
CREATE TABLE user_domains (
  user_id uuid NOT NULL REFERENCES users (id),
  tld text NOT NULL CHECK (tld ~ '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'),
  mode text NOT NULL CHECK (mode IN ('profile', 'redirect', 'custom')),
  redirect_url text CHECK (mode <> 'redirect' OR redirect_url IS NOT NULL),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (user_id, tld)
);
`).unprepared)
