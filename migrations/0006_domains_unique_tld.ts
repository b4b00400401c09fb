import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- A tld belongs to one account: the one whose identity.hns names it (PATCH /api/agent/domains/<tld> checks that).
-- Before this, any account could keep a setting for any tld; of several settings for one tld, the one whose
-- account's hns names it stays (else the earliest), and the others are dropped. A kept setting whose hns does not
-- name its tld is taken over by the first account whose hns does.
DELETE FROM user_domains d USING (
  SELECT k.user_id, k.tld, row_number() OVER (
    PARTITION BY k.tld
    ORDER BY (rtrim(lower(btrim(coalesce(u.identity->>'hns', ''))), './') = k.tld) DESC, k.created_at, k.user_id
  ) AS place
  FROM user_domains k JOIN users u ON u.id = k.user_id
) ranked
WHERE d.user_id = ranked.user_id AND d.tld = ranked.tld AND ranked.place > 1;

CREATE UNIQUE INDEX user_domains_one_holder ON user_domains (tld);
`).unprepared)
