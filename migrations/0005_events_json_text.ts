import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- An event's data is kept as the text the outbox wrote (JSON.stringify: compact), not as jsonb, whose text form adds
-- spaces and reorders keys: every reader (polling, replay, webhook bodies) then sends the very bytes that live frames
-- carry, and none of them parses and re-serializes 10,000 rows of a fan-out. json checks the syntax on insert, as jsonb
-- did, and nothing queries inside the data. Rows stored before this migration are rewritten compactly (their keys
-- stay in jsonb's order: the original order is gone).
CREATE FUNCTION shoal_compact_json(j jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $$
BEGIN
  CASE jsonb_typeof(j)
    WHEN 'object' THEN
      RETURN '{' || coalesce((SELECT string_agg(to_json(e.k)::text || ':' || shoal_compact_json(e.v), ',' ORDER BY e.n)
        FROM jsonb_each(j) WITH ORDINALITY AS e(k, v, n)), '') || '}';
    WHEN 'array' THEN
      RETURN '[' || coalesce((SELECT string_agg(shoal_compact_json(e.v), ',' ORDER BY e.n)
        FROM jsonb_array_elements(j) WITH ORDINALITY AS e(v, n)), '') || ']';
    ELSE
      RETURN j::text;
  END CASE;
END
$$;
ALTER TABLE events ALTER COLUMN data TYPE json USING shoal_compact_json(data)::json;
ALTER TABLE event_fanouts ALTER COLUMN data TYPE json USING shoal_compact_json(data)::json;
DROP FUNCTION shoal_compact_json(jsonb);
`).unprepared)
