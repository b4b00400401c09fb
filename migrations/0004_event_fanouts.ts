import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
-- A large emit (one payload, many recipients) commits as ONE row here, in the transaction of the change that caused
-- it, with its block of cursors lo..hi already reserved; the expander then turns it into the per-recipient rows of
-- events in small chunks (src/Realtime/Expander.ts). Readers see the unexpanded part through this row, so every
-- cursor is visible exactly once from the commit on. Writing 10,000 index entries inside the emitting transaction
-- cost ~100 ms on the embedded database before the first socket could hear of it; this row costs ~6 ms.
CREATE TABLE event_fanouts (
  lo bigint PRIMARY KEY,
  hi bigint NOT NULL,
  salt text NOT NULL,
  type text NOT NULL,
  data jsonb NOT NULL,
  -- recipient ids, comma-separated, in cursor order: text is not parsed on insert, a uuid[] of 10,000 costs ~16 ms
  recipients text NOT NULL,
  -- recipients 1..expanded already have their events rows
  expanded integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL DEFAULT now(),
  -- when their webhook deliveries fall due (the application Clock, like webhook_deliveries)
  due_at timestamptz NOT NULL,
  CHECK (hi >= lo AND expanded >= 0 AND expanded <= hi - lo + 1)
);
-- stored uncompressed: compressing ~370 KB of ids took longer than writing them
ALTER TABLE event_fanouts ALTER COLUMN recipients SET STORAGE EXTERNAL;
`).unprepared)
