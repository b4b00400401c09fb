import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * The console's sessions (issue 44): a browser signs in with a key once and then holds a random token in an HttpOnly
 * cookie, so the key never sits in page storage. Only a hash of the token is kept. A session belongs to the key it was
 * made from: revoking or rotating that key ends it (authentication joins the key's row), with no second list to keep.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
CREATE TABLE console_sessions (
  token_hash text PRIMARY KEY,
  key_hash text NOT NULL REFERENCES api_keys (key_hash),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  revoked_at timestamptz
);
CREATE INDEX console_sessions_key_idx ON console_sessions (key_hash);
`).unprepared)
