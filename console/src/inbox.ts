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
    {
      label: string
      aria: string
      run: () => Promise<unknown>
      busy: string
      confirm?: () => string
      /** the triage key that presses it (see KEYS) */
      key?: string
      danger?: boolean
    }
  >,
  done: () => Promise<void>
) => {
  const box = errorBox()
  const els = buttons.map((b) => {
    const button = h("button", {
      type: "button",
      "aria-label": b.aria,
      "data-key": b.key,
      "aria-keyshortcuts": b.key,
      class: b.danger ? "danger" : undefined
    }, b.label)
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
        key: "a",
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
        key: "r",
        run: () =>
          api((c) =>
            c.tasks.rejectTask({ path: { task_id: taskId }, payload: noteOf(note.input), headers: idempotent() })
          )
      },
      {
        label: "Cancel task",
        aria: `Cancel “${item.summary}” and burn its ${item.amount ?? 0} Gems`,
        busy: "Cancelling…",
        key: "c",
        danger: true,
        // as CONTRACT says: cancelling a task burns its bounty, pending Gems included; nobody gets them back
        confirm: () =>
          `Cancel “${item.summary}”? Its bounty of ${item.amount ?? 0} Gems is burned: destroyed, not paid to ` +
          `@${item.from_handle} and not returned to you. This cannot be undone.`,
        run: () => api((c) => c.tasks.patchTask({ path: { task_id: taskId }, payload: { status: "cancelled" } }))
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
        key: "a",
        run: () => api((c) => c.messages.approveMessageRequest({ path: { request_id: item.id as Ids.MessageId } }))
      },
      {
        label: "Decline",
        aria: `Decline the message from @${item.from_handle}`,
        busy: "Declining…",
        key: "r",
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
      {
        label: "Mark read",
        aria: `Mark the message from @${item.from_handle} read`,
        busy: "Marking…",
        key: "a",
        run: markRead
      }
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
      key: "a",
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

let early: { readonly at: number; readonly read: Promise<OwnerReads.Inbox> } | undefined

/**
 * The Inbox's read, started beside the sign-in check when the Inbox is the page being opened: the two requests
 * overlap instead of one waiting for the other (most of a cold load's time). Used once, if still fresh.
 */
export const prefetchInbox = () => {
  const read = api((c) => c.ownerReads.inbox({ urlParams: {} }))
  read.catch(() => {})
  early = { at: Date.now(), read }
}

const takeEarly = () => {
  const found = early !== undefined && Date.now() - early.at < 5_000 ? early.read : undefined
  early = undefined
  return found
}

/** The triage keys, as the hint under the counts shows them. */
const KEYS: ReadonlyArray<readonly [string, string]> = [
  ["j / k", "next / previous"],
  ["a", "approve, accept or mark read"],
  ["r", "reject or decline"],
  ["c", "cancel a bounty task"],
  ["n", "write the note or reply"]
]

/**
 * Keyboard triage over the inbox's cards, in page order: `j`/`k` select, the other keys press the selected card's
 * button of that key (its confirmation, if any, still asks). Keys typed into a field are the field's.
 */
const triage = (root: HTMLElement) => {
  let selected: string | undefined
  const cards = () => Array.from(root.querySelectorAll<HTMLElement>("li.card"))
  const idOf = (card: HTMLElement) =>
    `${card.dataset.kind}:${
      card.dataset.task ?? card.dataset.request ?? card.dataset.message ?? card.dataset.application
    }`
  const select = (card: HTMLElement | undefined) => {
    for (const c of cards()) {
      c.classList.remove("selected")
      c.removeAttribute("aria-current")
    }
    selected = card === undefined ? undefined : idOf(card)
    if (card === undefined) return
    card.classList.add("selected")
    card.setAttribute("aria-current", "true")
    card.tabIndex = -1
    card.focus({ preventScroll: true })
    card.scrollIntoView({ block: "nearest" })
  }
  /** after a redraw: the same item if it is still there, else the one now at its place */
  const restore = (index: number) => {
    const all = cards()
    const same = all.find((c) => idOf(c) === selected)
    if (same !== undefined) {
      same.classList.add("selected")
      same.setAttribute("aria-current", "true")
    } else if (selected !== undefined) select(all[Math.min(index, all.length - 1)])
  }
  const onKey = (e: KeyboardEvent) => {
    if (e.metaKey || e.ctrlKey || e.altKey || e.defaultPrevented) return
    const target = e.target as HTMLElement | null
    if (target !== null && (/^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName) || target.isContentEditable)) return
    const all = cards()
    const at = all.findIndex((c) => idOf(c) === selected)
    if (e.key === "j" || e.key === "k") {
      e.preventDefault()
      if (all.length === 0) return
      select(all[e.key === "j" ? Math.min(at + 1, all.length - 1) : Math.max(at - 1, 0)])
      return
    }
    const card = all[at]
    if (card === undefined) return
    if (e.key === "n") {
      e.preventDefault()
      card.querySelector<HTMLInputElement>("input")?.focus()
      return
    }
    const button = card.querySelector<HTMLButtonElement>(`button[data-key="${e.key}"]`)
    if (button === null || button.disabled) return
    e.preventDefault()
    button.click()
  }
  document.addEventListener("keydown", onKey)
  return {
    indexOfSelected: () => cards().findIndex((c) => idOf(c) === selected),
    restore,
    stop: () => document.removeEventListener("keydown", onKey)
  }
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

    const board = h("div", { class: "board" }, ...sections)
    const keys = triage(board)
    const hint = h(
      "p",
      { class: "hint", "data-hint": "keyboard" },
      "Keyboard: ",
      KEYS.flatMap(([k, what], i) => [i === 0 ? "" : " · ", h("kbd", {}, k), ` ${what}`])
    )

    const draw = () => {
      const index = keys.indexOfSelected()
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
      keys.restore(Math.max(0, index))
    }

    // reloads overlap (a decision, an event): only the latest started may draw, or an older answer could bring back
    // an item just decided
    const reload = async () => {
      const mine = ++latest
      try {
        const inbox = await (takeEarly() ?? api((c) => c.ownerReads.inbox({ urlParams: {} })))
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
        hint,
        board,
        h("div", { class: "actions" }, more),
        moreBox
      ],
      cleanup: () => {
        stop()
        keys.stop()
        clearTimeout(timer)
      }
    }
  }
}
