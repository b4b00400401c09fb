import * as SqlClient from "@effect/sql/SqlClient"
import { Effect } from "effect"

/**
 * Whether a project or squad membership was made by the member's side (the member itself or the human owning it
 * joined, created, took a task, or was accepted on a gig it applied for): only such a membership connects the member
 * to the others for direct messages (CONTRACT "Direct messages"). A membership a stranger makes alone is not.
 * Existing rows: owners, the members of a project or squad their own side created, accepted gig applicants and
 * members who created a task in the project count as consented; the rest cannot be told apart and do not.
 */
export default Effect.flatMap(SqlClient.SqlClient, (sql) =>
  sql.unsafe(`
ALTER TABLE project_members ADD COLUMN consented boolean NOT NULL DEFAULT false;
ALTER TABLE team_members ADD COLUMN consented boolean NOT NULL DEFAULT false;

UPDATE project_members m SET consented = true
FROM projects p, users u
WHERE p.id = m.project_id AND u.id = m.user_id
  AND (m.role = 'owner' OR p.owner_id = m.user_id OR p.owner_id = u.owner_id
    OR EXISTS (SELECT 1 FROM tasks t WHERE t.project_id = m.project_id AND t.created_by = m.user_id)
    OR EXISTS (SELECT 1 FROM gig_applications g JOIN tasks t ON t.id = g.task_id
      WHERE t.project_id = m.project_id AND g.applicant_id = m.user_id AND g.status = 'accepted'));

UPDATE team_members m SET consented = true
FROM teams t, users u
WHERE t.id = m.team_id AND u.id = m.user_id
  AND (m.role = 'owner' OR t.created_by = m.user_id OR t.created_by = u.owner_id);
`).unprepared)
