import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * A deadline is one format, an ISO 8601 date-time in UTC (issue 41): those stored as a date (`2026-12-01`) become
 * midnight UTC of that day, as a date given now is read.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
UPDATE projects SET deadline = deadline || 'T00:00:00.000Z' WHERE deadline ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
UPDATE tasks SET deadline = deadline || 'T00:00:00.000Z' WHERE deadline ~ '^[0-9]{4}-[0-9]{2}-[0-9]{2}$';
`).unprepared)
