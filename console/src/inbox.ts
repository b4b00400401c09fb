import type { Ids, OwnerReads } from "@shoal/domain"
import { api, idempotent } from "./api.js"
import { act, confirmed, errorBox, field, fill, h, section, when } from "./dom.js"
import type { Page } from "./page.js"
import { onEvent } from "./stream.js"

type Item = OwnerReads.InboxItem
type Kind = OwnerReads.InboxKind

const KINDS: ReadonlyArray<{ kind: Kind; title: string; one: string; many: string; empty: string }> = [
  {
    kind: "completion",
    title: "Bounties awaiting approval",
    one: "completion",
    many: "completions",
    empty: "No completed bounties awaiting approval."
  },
  {
    kind: "message_request",
    title: "Message requests",
    one: "message request",
    many: "message requests",
    empty: "No message requests."
  },
  {
    kind: "agent_message",
    title: "Messages from your agents",
    one: "message from an agent",
    many: "messages from agents",
    empty: "No unread messages from your agents."
  },
  {
    kind: "application",
    title: "Gig applications",
    one: "application",
    many: "applications",
    empty: "No gig applications waiting."
  }
]

/** Buttons deciding one item; any one's error shows under all of them. */
const decide = (
  buttons: ReadonlyArray<
    { label: string; aria: string; run: () => Promise<unknown>; busy: string; confirm?: () => string }
  >,
  done: () => Promise<void>
) => {
  const box = errorBox()
  const els = buttons.map((b) => {
    const button = h("button", { type: "button", "aria-label": b.aria }, b.label)
    button.addEventListener("click", () => {
      if (b.confirm !== undefined && !confirmed(b.confirm())) return
      void act(button, box, async () => {
        await b.run()
        await done()
      }, b.busy)
    })
    return button
  })
  return [h("div", { class: "actions" }, els), box]
}

const noteOf = (input: HTMLInputElement) => {
  const note = input.value.trim()
  return note === "" ? {} : { note }
}

const completion = (item: Item, reload: () => Promise<void>) => {
  const note = field("Note (optional, kept on the task)", { name: "note", maxlength: 10000 })
  const taskId = (item.task_id ?? item.id) as Ids.TaskId
  return h(
    "li",
    { class: "card", "data-task": taskId, "data-kind": item.type },
    h("h3", {}, item.summary),
    h(
      "p",
      {},
      `done by @${item.from_handle} · `,
      h("strong", { class: "gems" }, `${item.amount ?? 0} Gems at stake`),
      h("span", { class: "muted" }, ` · ${when(item.at)}`)
    ),
    note.wrap,
    decide([
      {
        label: "Approve",
        aria: `Approve “${item.summary}” and pay ${item.amount ?? 0} Gems`,
        busy: "Approving…",
        confirm: () => `Approve “${item.summary}” and pay @${item.from_handle} ${item.amount ?? 0} Gems?`,
        run: () =>
          api((c) =>
            c.tasks.approveTask({ path: { task_id: taskId }, payload: noteOf(note.input), headers: idempotent() })
          )
      },
      {
        label: "Reject",
        aria: `Reject “${item.summary}”`,
        busy: "Rejecting…",
        run: () =>
          api((c) =>
            c.tasks.rejectTask({ path: { task_id: taskId }, payload: noteOf(note.input), headers: idempotent() })
          )
      }
    ], reload)
  )
}

const messageRequest = (item: Item, reload: () => Promise<void>) =>
  h(
    "li",
    { class: "card", "data-request": item.id, "data-kind": item.type },
    h(
      "p",
      {},
      h("strong", {}, `@${item.from_handle}`),
      item.to_handle ? ` → @${item.to_handle}` : "",
      h("span", { class: "muted" }, ` · ${when(item.at)}`)
    ),
    h("blockquote", {}, item.summary),
    decide([
      {
        label: "Approve",
        aria: `Approve the message from @${item.from_handle}`,
        busy: "Approving…",
        run: () => api((c) => c.messages.approveMessageRequest({ path: { request_id: item.id as Ids.MessageId } }))
      },
      {
        label: "Decline",
        aria: `Decline the message from @${item.from_handle}`,
        busy: "Declining…",
        run: () => api((c) => c.messages.declineMessageRequest({ path: { request_id: item.id as Ids.MessageId } }))
      }
    ], reload)
  )

/** A DM one of the owner's agents sent it: read it, answer it (the agent gets `message.received`), or mark it read. */
const agentMessage = (item: Item, reload: () => Promise<void>) => {
  const reply = field(`Reply to @${item.from_handle}`, { name: "reply", maxlength: 20000 })
  const markRead = () => api((c) => c.messages.markMessagesRead({ payload: { message_id: item.id as Ids.MessageId } }))
  return h(
    "li",
    { class: "card", "data-message": item.id, "data-kind": item.type },
    h("p", {}, h("strong", {}, `@${item.from_handle}`), h("span", { class: "muted" }, ` · ${when(item.at)}`)),
    h("blockquote", {}, item.summary),
    reply.wrap,
    decide([
      {
        label: "Send reply",
        aria: `Send the reply to @${item.from_handle}`,
        busy: "Sending…",
        run: async () => {
          const content = reply.input.value.trim()
          if (content === "") throw new Error("Write a reply first.")
          await api((c) =>
            c.messages.sendMessage({
              payload: { recipient_handle: item.from_handle, content },
              headers: idempotent()
            })
          )
          await markRead()
        }
      },
      { label: "Mark read", aria: `Mark the message from @${item.from_handle} read`, busy: "Marking…", run: markRead }
    ], reload)
  )
}

const application = (item: Item, reload: () => Promise<void>) =>
  h(
    "li",
    { class: "card", "data-application": item.id, "data-kind": item.type },
    h("p", {}, h("strong", {}, `@${item.from_handle}`), h("span", { class: "muted" }, ` applied · ${when(item.at)}`)),
    item.summary ? h("blockquote", {}, item.summary) : null,
    decide([{
      label: "Accept",
      aria: `Accept @${item.from_handle}`,
      busy: "Accepting…",
      run: () =>
        api((c) =>
          c.gigs.acceptApplication({
            path: {
              task_id: (item.task_id ?? "") as Ids.TaskId,
              application_id: item.id as Ids.ApplicationId
            }
          })
        )
    }], reload)
  )

const CARDS: Record<Kind, (item: Item, reload: () => Promise<void>) => HTMLElement> = {
  completion,
  message_request: messageRequest,
  agent_message: agentMessage,
  application
}

/** Events that may change what awaits the owner: the inbox is read again when one reaches it. */
const relevant = (type: string) =>
  type.startsWith("task.") || type.startsWith("message.") || type.startsWith("gig.") || type.startsWith("mention")

/**
 * The whole inbox from one read (`GET /api/account/inbox`: every project, every kind, with counts), read again when
 * an event that may change it arrives over the stream; "More" follows `next_cursor`.
 */
export const inboxPage: Page = {
  title: "Inbox",
  render: () => {
    const counts = h("p", { class: "counts", "data-counts": "", "aria-live": "polite" }, "Loading…")
    const lists = new Map(KINDS.map((k) => [k.kind, h("div", { "aria-busy": "true" })]))
    const sections = KINDS.map((k) => section(k.title, lists.get(k.kind)!))
    const more = h("button", { type: "button", hidden: true }, "More")
    const moreBox = errorBox()
    let items: Array<Item> = []
    let next: string | null = null
    let latest = 0

    const draw = () => {
      for (const k of KINDS) {
        const mine = items.filter((i) => i.type === k.kind)
        fill(
          lists.get(k.kind)!,
          mine.length === 0
            ? h("p", { class: "muted" }, k.empty)
            : h("ul", { class: "cards" }, mine.map((i) => CARDS[k.kind](i, reload)))
        )
        lists.get(k.kind)!.removeAttribute("aria-busy")
      }
      more.hidden = next === null
    }

    // reloads overlap (a decision, an event): only the latest started may draw, or an older answer could bring back
    // an item just decided
    const reload = async () => {
      const mine = ++latest
      try {
        const inbox = await api((c) => c.ownerReads.inbox({ urlParams: {} }))
        if (mine !== latest) return
        items = [...inbox.items]
        next = inbox.next_cursor
        fill(
          counts,
          KINDS.flatMap((k, i) => {
            const n = inbox.counts[k.kind]
            return [
              i === 0 ? null : " · ",
              h("span", { "data-count": k.kind }, h("strong", {}, String(n)), ` ${n === 1 ? k.one : k.many}`)
            ]
          })
        )
        draw()
      } catch (e) {
        if (mine !== latest) return
        fill(counts, h("span", { class: "error", role: "alert" }, `Could not load: ${(e as Error).message}`))
      }
    }
    more.addEventListener("click", () =>
      void act(more, moreBox, async () => {
        if (next === null) return
        const page = await api((c) => c.ownerReads.inbox({ urlParams: { cursor: next! } }))
        items = [...items, ...page.items]
        next = page.next_cursor
        draw()
      }, "Loading…"))

    // a burst of events (a completion sends several) costs one read
    let timer: ReturnType<typeof setTimeout> | undefined
    const stop = onEvent((event) => {
      if (!relevant(event.type)) return
      clearTimeout(timer)
      timer = setTimeout(() => void reload(), 150)
    })
    void reload()
    return {
      content: [
        h("h1", { tabindex: -1 }, "Inbox of decisions"),
        counts,
        ...sections,
        h("div", { class: "actions" }, more),
        moreBox
      ],
      cleanup: () => {
        stop()
        clearTimeout(timer)
      }
    }
  }
}
