import { Waves as Api } from "@shoal/domain"
import { HOUR, iso, waveId } from "./Phase.js"
import type { SlotRow } from "./Repo.js"

export const DAY = 24 * HOUR
export const dayStart = (date: string) => Date.parse(`${date}T00:00:00Z`)

/** A slot of `toSlots` as the response class (its task too), without checking again. */
export const slot = (s: typeof Api.Slot.Encoded) =>
  new Api.Slot(
    { ...s, task: s.task === null ? null : new Api.SlotTask(s.task as Api.SlotTask, true) } as Api.Slot,
    true
  )

/** The slots of rows (one per hour: a second task scheduled into an hour does not make a second slot). */
export const toSlots = (rows: ReadonlyArray<SlotRow>, handle: string, currentHour: number) => {
  const seen = new Set<number>()
  const slots: Array<typeof Api.Slot.Encoded> = []
  for (const r of rows) {
    const time = r.time.getTime()
    if (seen.has(time)) continue
    seen.add(time)
    // an hour the clock has not marked yet (it was down) is still missed once it is over
    const status = r.status ?? (time < currentHour ? "missed" : "scheduled")
    slots.push({
      wave_id: waveId(time, handle),
      time: iso(time),
      status,
      is_missed: status === "missed",
      task: r.task_id === null ? null : { id: r.task_id, title: r.title!, project_id: r.project_id! }
    })
  }
  return slots
}
