import { Errors, type Ids, type Waves } from "@shoal/domain"
import { Effect } from "effect"

export const HOUR = 3_600_000
const MINUTE = 60_000

/** The phase boundaries, in minutes past the hour (CONTRACT "Wave states"). */
const starts: ReadonlyArray<readonly [number, Waves.WaveState]> = [[0, "PREPARATION"], [10, "FLOW"], [50, "SURFACE"]]

export const hourOf = (ms: number) => Math.floor(ms / HOUR) * HOUR

export interface Phase {
  readonly state: Waves.WaveState
  /** the start of the running Wave */
  readonly hour: number
  /** when this phase began */
  readonly start: number
  /** the next boundary */
  readonly next: number
}

export const phaseAt = (ms: number): Phase => {
  const hour = hourOf(ms)
  const minute = Math.floor((ms - hour) / MINUTE)
  const i = minute >= 50 ? 2 : minute >= 10 ? 1 : 0
  const [m, state] = starts[i]!
  const next = i === 2 ? hour + HOUR : hour + starts[i + 1]![0] * MINUTE
  return { state, hour, start: hour + m * MINUTE, next }
}

/** `YYYYMMDDHH` + handle (CONTRACT "Wave states"). */
export const waveId = (hour: number, handle: string) => {
  const iso = new Date(hour).toISOString()
  return `${iso.slice(0, 4)}${iso.slice(5, 7)}${iso.slice(8, 10)}${iso.slice(11, 13)}${handle}`
}

/** The data of `wave.scheduled` and `wave.started`: a task and the agent's Wave it is in. */
export const taskInWave = (
  task: { readonly id: Ids.TaskId; readonly title: string },
  hour: number,
  handle: string
) => ({
  task_id: task.id,
  task_title: task.title,
  wave_id: waveId(hour, handle),
  wave_time: iso(hour)
})

/** The hour and handle of a wave id, or undefined when it is not one. */
export const parseWaveId = (id: string): { readonly hour: number; readonly handle: string } | undefined => {
  const m = /^(\d{4})(\d{2})(\d{2})(\d{2})(.+)$/.exec(id)
  if (m === null) return undefined
  const hour = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]))
  if (Number.isNaN(hour) || waveId(hour, m[5]!) !== id) return undefined
  return { hour, handle: m[5]! }
}

let isoMinute = Number.NaN
let isoPrefix = ""
/**
 * `new Date(ms).toISOString()`, the same string (a RangeError for an invalid time, as there), ~20× cheaper: the
 * heartbeat answers with two of these per call. The `YYYY-MM-DDTHH:MM:` of the last minute asked is kept, and the
 * seconds and milliseconds are written from the arithmetic.
 */
export const iso = (ms: number): string => {
  // a fraction, NaN or a time out of Date's range: as Date has it (truncated, or a RangeError)
  if (!Number.isInteger(ms) || Math.abs(ms) > 8.64e15) return new Date(ms).toISOString()
  const minute = Math.floor(ms / MINUTE)
  if (minute !== isoMinute) {
    // drops `SS.mmmZ` (also right for a six-digit year, `+275760-…`)
    isoPrefix = new Date(minute * MINUTE).toISOString().slice(0, -7)
    isoMinute = minute
  }
  const rest = ms - minute * MINUTE
  const s = Math.floor(rest / 1000)
  const milli = rest - s * 1000
  return isoPrefix + (s < 10 ? "0" : "") + s + (milli < 10 ? ".00" : milli < 100 ? ".0" : ".") + milli + "Z"
}

/** The hour a `wave_time` names: exactly on an hour and not before `earliest`, or a 422 naming the field. */
export const waveHour = (waveTime: string, earliest: number, tooEarly: string) => {
  const hour = Date.parse(waveTime)
  const problem = hour % HOUR !== 0
    ? "wave_time must be exactly on the hour (minutes, seconds and milliseconds 0), e.g. 2026-12-01T17:00Z"
    : hour < earliest
    ? tooEarly
    : undefined
  return problem === undefined
    ? Effect.succeed(hour)
    : Effect.fail(new Errors.Unprocessable({ message: problem, details: { field: "wave_time", wave_time: waveTime } }))
}
