import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Named keys (issue 44): an id to address a key by (its hash is how requests find it, not a name to show), an
 * optional name the owner gives it, and the key's first characters so a person can tell which key is which. Keys
 * made before this have no prefix: it cannot be recovered from a hash.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE api_keys ADD COLUMN id uuid NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE api_keys ADD COLUMN name text;
ALTER TABLE api_keys ADD COLUMN prefix text;
CREATE UNIQUE INDEX api_keys_id_idx ON api_keys (id);
`).unprepared)
