import type { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"

/** Text matched literally inside a LIKE pattern: its `%`, `_` and `\` escaped. */
export const likeEscape = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`)

/**
 * A project's or squad's `addMember`: adds the user unless already there; true when added. The `higher` role given
 * later upgrades a member, and so does consent: `consented` says the member's side made this membership
 * (`Messages/Policy.joinsBySelf`; by default someone else did, e.g. by assigning it).
 */
export const memberAdder = <Higher extends string>(
  sql: SqlClient.SqlClient,
  table: "project_members" | "team_members",
  group: "project_id" | "team_id",
  higher: Higher
) =>
(id: string, user: Ids.UserId, role: "member" | Higher, now: Date, consented = false) => {
  const t = sql(table)
  return Effect.map(
    sql<{ inserted: boolean }>`INSERT INTO ${t} (${sql(group)}, user_id, role, consented, created_at)
      VALUES (${id}, ${user}, ${role}, ${consented}, ${now})
      ON CONFLICT (${sql(group)}, user_id) DO UPDATE SET
        role = CASE WHEN ${t}.role = 'member' AND EXCLUDED.role = ${higher} THEN EXCLUDED.role ELSE ${t}.role END,
        consented = ${t}.consented OR EXCLUDED.consented
        WHERE (${t}.role = 'member' AND EXCLUDED.role = ${higher}) OR (EXCLUDED.consented AND NOT ${t}.consented)
      RETURNING (xmax = 0) AS inserted`,
    (rows) => rows.length > 0 && rows[0]!.inserted
  ).pipe(Effect.orDie)
}
