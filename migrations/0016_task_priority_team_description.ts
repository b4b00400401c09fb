import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Two fields older clients send (issue 45): a task's `priority` (null until someone sets it, so existing tasks do
 * not claim a priority nobody gave them) and a squad's `description`.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE tasks ADD COLUMN priority text CHECK (priority IN ('low', 'medium', 'high', 'urgent'));
ALTER TABLE teams ADD COLUMN description text NOT NULL DEFAULT '';
`).unprepared)
