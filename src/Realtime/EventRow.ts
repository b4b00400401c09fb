import type { Ids } from "@shoal/domain"
/** One stored event as the stream carries it. `data` stays JSON text from the database: frames embed it as is. */
export interface EventRow {
  readonly cursor: number
  readonly id: string
  readonly recipientId: Ids.UserId
  readonly type: string
  readonly createdAt: string
  readonly data: string
}

export interface RawEventRow {
  readonly cursor: string | number
  readonly id: string
  readonly recipient_id: Ids.UserId
  readonly type: string
  readonly created_at: Date | string
  readonly data: string
}

// hand-mapped rather than Schema-decoded: a fan-out to 10,000 recipients reads 10,000 of these at once
export const fromRaw = (r: RawEventRow): EventRow => ({
  cursor: Number(r.cursor),
  id: r.id,
  recipientId: r.recipient_id,
  type: r.type,
  createdAt: (r.created_at instanceof Date ? r.created_at : new Date(r.created_at)).toISOString(),
  data: r.data
})

// a fan-out writes the same few types thousands of times in a row
const typeJson = new Map<string, string>()
export const quotedType = (type: string) => {
  let q = typeJson.get(type)
  if (q === undefined) {
    if (typeJson.size > 1_000) typeJson.clear()
    typeJson.set(type, q = JSON.stringify(type))
  }
  return q
}

/** The event envelope as JSON text (ids are `evt_` + hex and timestamps ISO: nothing to escape). */
export const envelopeJson = (e: EventRow) =>
  `{"id":"${e.id}","type":${quotedType(e.type)},"created_at":"${e.createdAt}","data":${e.data}}`

/** An event as polling lists it (`PolledEvent`): the cursor, then the envelope's fields. */
export const polledEventJson = (e: EventRow) => `{"cursor":${e.cursor},${envelopeJson(e).slice(1)}`

export const eventFrame = (e: EventRow) => `{"type":"event","cursor":${e.cursor},"event":${envelopeJson(e)}}`

/** The id stored with an event: its cursor in hex and the emit's random salt (see EventsRepo.insertBlock). */
export const eventId = (cursor: number, salt: string) => `evt_${cursorHex(cursor)}${salt}`

/** An event id's cursor part: 16 hex digits. */
export const cursorHex = (cursor: number) => cursor.toString(16).padStart(16, "0")

/** The rows of one emit: recipients, and one type and JSON text for all of them or one each. */
export interface BlockRows {
  readonly recipients: ReadonlyArray<Ids.UserId>
  readonly types: ReadonlyArray<string> | string
  readonly datas: ReadonlyArray<string> | string
}

/** The rows of one emit as inserted: cursors `lo`, `lo + 1`, … in recipient order. */
export interface Block extends BlockRows {
  readonly lo: number
  readonly hi: number
  readonly salt: string
  readonly createdAt: string
}
