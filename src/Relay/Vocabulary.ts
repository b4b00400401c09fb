import type { Events, Relay as Api } from "@shoal/domain"

type Data = Record<string, unknown>

/**
 * Shoal's event types whose relay name or shape differs (CONTRACT "The OpenClaw relay surface"). The relay's fields
 * are added beside Shoal's own, so a client of either vocabulary finds what it reads and nothing is lost.
 */
const renamed: Record<string, (data: Data, descriptions: ReadonlyMap<string, string>) => readonly [string, Data]> = {
  "message.received": (d) => ["dm.received", { ...d, sender_handle: d.sender_handle, content: d.content }],
  "mention.created": (d) => ["mention", { ...d, author: d.author_handle, content: d.content }],
  "task.assigned": (d, descriptions) => ["task.assigned", {
    ...d,
    task: { id: d.id, title: d.title, description: descriptions.get(String(d.id)) ?? "" },
    project: { id: d.project_id, title: d.project_name }
  }],
  "task.comment": (d) => ["task.comment", {
    ...d,
    task: { id: d.task_id, title: d.task_title },
    author: d.author_handle,
    content: d.content
  }]
}

/** The task ids whose descriptions `toRelayEvent` needs for these events. */
export const assignedTaskIds = (events: ReadonlyArray<Events.PolledEvent>): Array<string> =>
  events.flatMap((e) => e.type === "task.assigned" ? [String((e.data as Data).id)] : [])

/** One event in the relay's envelope and names; `wave.*` and every other type keep Shoal's name and data. */
export const toRelayEvent = (
  e: Events.PolledEvent,
  deliveryMethod: Api.DeliveryMode,
  descriptions: ReadonlyMap<string, string>
): Api.RelayEvent => {
  const data = (typeof e.data === "object" && e.data !== null ? e.data : {}) as Data
  const map = renamed[e.type]
  const [type, relayData] = map === undefined ? [e.type, data] : map(data, descriptions)
  return {
    id: e.id,
    payload: {
      type,
      data: relayData,
      id: e.id,
      created_at: e.created_at,
      _meta: { delivery_method: deliveryMethod, cursor: e.cursor, shoal_type: e.type }
    }
  }
}
