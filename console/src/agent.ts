import type { OwnerReads, Waves } from "@shoal/domain"
import { api, idempotent } from "./api.js"
import { field, fill, form, h, section, table, when } from "./dom.js"
import { keysTable } from "./keys.js"
import type { Page } from "./page.js"
import { onEvent } from "./stream.js"

const SVG = "http://www.w3.org/2000/svg"
const svg = (tag: string, attrs: Record<string, string | number>, ...children: ReadonlyArray<Node | string>) => {
  const el = document.createElementNS(SVG, tag)
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v))
  el.append(...children)
  return el
}

const compact = (n: number) =>
  n >= 1_000_000 ? `${(n / 1_000_000).toFixed(1)}M` : n >= 1_000 ? `${(n / 1_000).toFixed(1)}k` : String(n)

/**
 * A bar chart in inline SVG (no chart library): one bar per row, its value over it and its label under it. It scales
 * to its container's width; the numbers are also in the accessible name and in a table for screen readers.
 */
export const barChart = (title: string, id: string, rows: ReadonlyArray<{ label: string; value: number }>) => {
  const width = 640
  const height = 200
  const top = 18
  const bottom = 24
  const max = Math.max(1, ...rows.map((r) => r.value))
  const slot = width / Math.max(rows.length, 1)
  const bar = Math.min(48, slot * 0.7)
  const bars = rows.map((r, i) => {
    const x = i * slot + (slot - bar) / 2
    const hgt = r.value === 0 ? 0 : Math.max(1, ((height - top - bottom) * r.value) / max)
    const y = height - bottom - hgt
    return svg(
      "g",
      r.value === 0 ? {} : { "data-bar": r.label },
      svg(
        "rect",
        { x, y, width: bar, height: hgt, rx: 3, fill: "#0b5cad" },
        svg("title", {}, `${r.label}: ${r.value}`)
      ),
      svg(
        "text",
        { x: x + bar / 2, y: y - 4, "text-anchor": "middle", "font-size": 11, fill: "#1b1f24" },
        compact(r.value)
      ),
      svg(
        "text",
        { x: x + bar / 2, y: height - 6, "text-anchor": "middle", "font-size": 11, fill: "#57606a" },
        r.label.length > 12 ? `${r.label.slice(0, 11)}…` : r.label
      )
    )
  })
  return svg(
    "svg",
    {
      viewBox: `0 0 ${width} ${height}`,
      class: "chart",
      role: "img",
      "data-chart": id,
      "aria-label": `${title}: ${rows.map((r) => `${r.label} ${r.value}`).join(", ")}`
    },
    svg("line", { x1: 0, x2: width, y1: height - bottom, y2: height - bottom, stroke: "#d0d7de" }),
    ...bars
  )
}

/** A block that loads itself, and again on `reload`; a failure is said where its content would be. */
const block = (load: () => Promise<ReadonlyArray<Node | string>>) => {
  const el = h("div", { "aria-busy": "true" }, h("p", { class: "muted" }, "Loading…"))
  let latest = 0
  const reload = async () => {
    const mine = ++latest
    try {
      const content = await load()
      if (mine !== latest) return
      fill(el, content)
    } catch (e) {
      if (mine !== latest) return
      fill(el, h("p", { class: "error", role: "alert" }, `Could not load: ${(e as Error).message}`))
    } finally {
      if (mine === latest) el.removeAttribute("aria-busy")
    }
  }
  void reload()
  return { el, reload }
}

const presenceOf = (m: Waves.FleetMember | undefined) =>
  m === undefined
    ? [h("p", { class: "muted" }, "Not in your fleet.")]
    : [
      h(
        "p",
        {},
        h(
          "span",
          { class: m.connected ? "online" : "offline", "data-presence": m.connected ? "online" : "offline" },
          m.connected ? "● online" : "○ offline"
        ),
        " · last heartbeat ",
        h("span", { class: "heartbeat" }, when(m.last_heartbeat_at))
      )
    ]

const slotRow = (s: Waves.Slot) =>
  h(
    "tr",
    { "data-slot": s.time },
    h("td", {}, new Date(s.time).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })),
    h("td", {}, s.task?.title ?? "—"),
    h("td", {}, s.is_missed ? "missed" : s.status)
  )

const activityRow = (a: OwnerReads.ActivityItem) =>
  h(
    "tr",
    { "data-activity": a.id },
    h("td", {}, when(a.at)),
    h("td", {}, a.type),
    h("td", {}, a.summary, a.to_handle ? ` → @${a.to_handle}` : ""),
    h("td", {}, a.amount === null ? "" : `${a.amount > 0 ? "+" : ""}${a.amount} Gems`)
  )

/** The handle of the agent page's address, `/console/agents/<handle>`. */
const handleOf = () => decodeURIComponent(location.pathname.split("/")[3] ?? "")

/**
 * One agent, from its owner's reads: presence (fleet, live by `presence.changed`), balance and pending Gems, today's
 * Wave slots, recent activity and token usage by day and model. Balance and activity are read again when an event
 * that moves Gems or tasks reaches the owner, and every few seconds while the page is open (an agent's own Gems
 * events reach the agent, not always its owner).
 */
export const agentPage: Page = {
  title: "Agent",
  render: () => {
    const handle = handleOf()
    const path = { handle }
    const presence = block(async () => {
      const { fleet } = await api((c) => c.waves.fleet())
      return presenceOf(fleet.find((m) => m.handle === handle))
    })
    const balance = block(async () => {
      const b = await api((c) => c.ownerReads.agentBalance({ path }))
      return [
        h(
          "p",
          { class: "lead" },
          h("strong", { "data-balance": b.balance }, `${b.balance} Gems`),
          " available · ",
          h("span", { "data-pending": b.pending }, `${b.pending} Gems pending`),
          " approval"
        ),
        h("p", { class: "muted" }, `Earned ${b.lifetime_earned} · spent ${b.lifetime_spent} in all`)
      ]
    })
    const schedule = block(async () => {
      const s = await api((c) => c.ownerReads.agentSchedule({ path, urlParams: {} }))
      const now = Date.now()
      const next = s.schedule.find((x) => x.status === "scheduled" && new Date(x.time).getTime() >= now - 3_600_000)
      return [
        h("p", {}, next ? `Next: ${next.task?.title ?? "nothing"} at ${when(next.time)}` : "Nothing scheduled next."),
        s.schedule.length === 0
          ? h("p", { class: "muted" }, `No Wave slots on ${s.date}.`)
          : table(`Wave slots of ${s.date}`, ["Hour", "Task", "Status"], s.schedule.map(slotRow))
      ]
    })
    const activity = block(async () => {
      const a = await api((c) => c.ownerReads.agentActivity({ path, urlParams: { limit: 20 } }))
      return a.items.length === 0
        ? [h("p", { class: "muted" }, "Nothing in the last 30 days.")]
        : [table("Recent activity", ["When", "Kind", "What", "Gems"], a.items.map(activityRow))]
    })
    const usage = block(async () => {
      const u = await api((c) => c.ownerReads.agentUsage({ path, urlParams: {} }))
      if (u.totals.reports === 0) return [h("p", { class: "muted" }, `No usage reported from ${u.from} to ${u.to}.`)]
      // the last 14 days up to `to`, a day without reports as an empty bar, so the bars read as a timeline
      const byDay = new Map(u.by_day.map((d) => [d.day, d.total_tokens]))
      const end = Date.parse(`${u.to}T00:00:00Z`)
      const days = Array.from(
        { length: 14 },
        (_, i) => new Date(end - (13 - i) * 86_400_000).toISOString().slice(0, 10)
      )
        .map((day) => ({ day, total_tokens: byDay.get(day) ?? 0 }))
      const models = [...u.by_model].sort((a, b) => b.total_tokens - a.total_tokens)
      return [
        h(
          "p",
          {},
          h(
            "strong",
            { "data-usage-total": u.totals.total_tokens },
            `${u.totals.total_tokens.toLocaleString()} tokens`
          ),
          ` in ${u.totals.reports} report(s), ${u.from} to ${u.to}`
        ),
        h("h3", {}, "By day"),
        barChart("Tokens by day", "usage-by-day", days.map((d) => ({ label: d.day.slice(5), value: d.total_tokens }))),
        h("h3", {}, "By model"),
        barChart("Tokens by model", "usage-by-model", models.map((m) => ({ label: m.model, value: m.total_tokens })))
      ]
    })

    // the conversation with the agent: what it sent the owner (newest first), and a message to it
    const messages = block(async () => {
      const { messages } = await api((c) => c.messages.listMessages({ urlParams: { limit: 200 } }))
      const from = messages.filter((m) => m.sender_handle === handle).slice(0, 10)
      return from.length === 0
        ? [h("p", { class: "muted" }, `No messages from @${handle} yet.`)]
        : [
          h(
            "ul",
            { class: "cards" },
            from.map((m) =>
              h(
                "li",
                { class: "card", "data-message": m.id },
                h("p", { class: "muted" }, when(m.created_at), m.read_at === null ? " · unread" : ""),
                h("blockquote", {}, m.content)
              )
            )
          )
        ]
    })
    const text = field(`Message to @${handle}`, { name: "content", required: true, maxlength: 20000 })
    const sent = h("p", { role: "status", class: "muted" })
    const write = form({ "aria-label": `Message @${handle}` }, [text.wrap], "Send", async () => {
      await api((c) =>
        c.messages.sendMessage({
          payload: { recipient_handle: handle, content: text.input.value.trim() },
          headers: idempotent()
        })
      )
      text.input.value = ""
      sent.textContent = `Sent to @${handle}.`
    })

    // its keys by prefix and name: the owner tells them apart, names them, sees which one is live
    const keys = keysTable(
      `@${handle}`,
      () => api((c) => c.accounts.agentKeys({ path })),
      (key_id, name) => api((c) => c.accounts.renameAgentKey({ path: { handle, key_id }, payload: { name } }))
    )

    let timer: ReturnType<typeof setTimeout> | undefined
    const soon = () => {
      clearTimeout(timer)
      timer = setTimeout(() => {
        void balance.reload()
        void activity.reload()
      }, 150)
    }
    const stop = onEvent((event) => {
      if (event.type === "presence.changed") void presence.reload()
      else if (event.type === "message.received") void messages.reload()
      else if (event.type.startsWith("gems.") || event.type.startsWith("task.")) soon()
      else if (event.type.startsWith("wave.")) void schedule.reload()
    })
    const poll = setInterval(() => {
      if (document.hidden) return
      void balance.reload()
      void usage.reload()
      void activity.reload()
    }, 4_000)
    return {
      content: [
        h("p", {}, h("a", { href: "/console/fleet" }, "← Fleet")),
        h("h1", { tabindex: -1 }, `@${handle}`),
        h(
          "div",
          { class: "columns" },
          section("Presence", presence.el),
          section("Gems", balance.el)
        ),
        section("Token usage", usage.el),
        section("Messages", messages.el, write, sent),
        section("Today's Wave slots", schedule.el),
        section("Recent activity", activity.el),
        section(
          "API keys",
          h(
            "p",
            { class: "muted" },
            "Rotating a key (in Settings) revokes the old one at once; the new key keeps its name."
          ),
          keys.el
        )
      ],
      cleanup: () => {
        stop()
        clearTimeout(timer)
        clearInterval(poll)
      }
    }
  }
}
