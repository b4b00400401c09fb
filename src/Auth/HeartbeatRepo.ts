import { SqlClient } from "@effect/sql"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import { sqlArray } from "../Database/SqlArrays.js"

export class HeartbeatRepo extends Effect.Service<HeartbeatRepo>()("Auth/HeartbeatRepo", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient

    /** Last-seen times, one statement for the batch; a time never moves back. */
    const saveLastSeen = (seen: ReadonlyMap<Ids.UserId, number>) => {
      const ids = [...seen.keys()]
      const times = ids.map((id) => new Date(seen.get(id)!).toISOString())
      return Effect.asVoid(sql`
        UPDATE users SET last_seen_at = v.t
        FROM (SELECT unnest(${sqlArray(ids)}::uuid[]) AS id, unnest(${times}::timestamptz[]) AS t) v
        WHERE users.id = v.id AND (users.last_seen_at IS NULL OR users.last_seen_at < v.t)`)
    }

    return { saveLastSeen } as const
  })
}) {}
