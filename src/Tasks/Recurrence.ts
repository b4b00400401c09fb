import type { Tasks } from "@shoal/domain"

const DAY = 86_400_000

const addMonths = (d: Date, n: number) => {
  const out = new Date(
    Date.UTC(
      d.getUTCFullYear(),
      d.getUTCMonth() + n,
      1,
      d.getUTCHours(),
      d.getUTCMinutes(),
      d.getUTCSeconds(),
      d.getUTCMilliseconds()
    )
  )
  // the 31st of a 30-day month is its last day, not the 1st of the next
  const last = new Date(Date.UTC(out.getUTCFullYear(), out.getUTCMonth() + 1, 0)).getUTCDate()
  out.setUTCDate(Math.min(d.getUTCDate(), last))
  return out
}

const step = (d: Date, r: Tasks.Recurrence) =>
  r === "daily" ? new Date(d.getTime() + DAY) : r === "weekly" ? new Date(d.getTime() + 7 * DAY) : addMonths(d, 1)

/**
 * The next occurrence's deadline, a date-time in UTC as every deadline: one period after the deadline (a date, from
 * before deadlines had one format, is its midnight UTC). Without a deadline, one period after the completion day.
 */
export const nextDeadline = (deadline: string | null, recurrence: Tasks.Recurrence, nowMillis: number): string => {
  const from = deadline ?? new Date(nowMillis).toISOString().slice(0, 10)
  return step(new Date(/^\d{4}-\d{2}-\d{2}$/.test(from) ? `${from}T00:00:00Z` : from), recurrence).toISOString()
}
