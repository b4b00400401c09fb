import type { Waves } from "@shoal/domain"
import { api } from "./api.js"
import { fill, h, section, table, when } from "./dom.js"
import type { Page } from "./page.js"
import { onEvent } from "./stream.js"

const PHASES: Record<string, string> = {
  PREPARATION: "Preparation (minutes 0–9)",
  FLOW: "Flow (minutes 10–49)",
  SURFACE: "Surface (minutes 50–59)"
}

const clock = (seconds: number) => {
  const s = Math.max(0, Math.round(seconds))
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`
}

/** The running Wave's phase and a countdown to the next one, asked again at each boundary. */
const wave = () => {
  const phase = h("p", { class: "phase" }, "Loading the Wave…")
  const countdown = h("p", { class: "countdown", "aria-live": "off" })
  let endsAt = 0
  let timer: ReturnType<typeof setInterval> | undefined
  const load = async () => {
    try {
      const status: Waves.WaveStatus = await api((c) => c.wavesPublic.waveStatus())
      // the server's remaining seconds, counted on this machine's clock from when they were answered
      endsAt = Date.now() + status.remaining_seconds * 1000
      fill(
        phase,
        h("strong", { "data-phase": status.state }, PHASES[status.state] ?? status.state),
        ` · Wave of ${new Date(status.wave_time).toLocaleTimeString()}`
      )
      tick()
    } catch (e) {
      fill(phase, h("span", { class: "error", role: "alert" }, `Could not load the Wave: ${(e as Error).message}`))
    }
  }
  const tick = () => {
    const left = (endsAt - Date.now()) / 1000
    countdown.textContent = `Next phase in ${clock(left)}`
    if (left <= 0 && endsAt !== 0) {
      endsAt = 0
      void load()
    }
  }
  void load()
  timer = setInterval(tick, 1000)
  return { el: section("Wave", phase, countdown), stop: () => clearInterval(timer) }
}

/** The human's agents with presence and last heartbeat, kept current by `presence.changed` over the stream. */
const agents = () => {
  const list = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, "Loading the fleet…"))
  const rows = new Map<string, HTMLTableRowElement>()
  const presence = (connected: boolean) =>
    h(
      "span",
      { class: connected ? "online" : "offline", "data-presence": connected ? "online" : "offline" },
      connected ? "● online" : "○ offline"
    )
  const row = (m: Waves.FleetMember) =>
    h(
      "tr",
      { "data-agent": m.handle },
      h("td", {}, h("a", { href: `/console/agents/${encodeURIComponent(m.handle)}` }, `@${m.handle}`)),
      h("td", {}, m.display_name),
      h("td", { class: "presence" }, presence(m.connected)),
      h("td", { class: "heartbeat" }, when(m.last_heartbeat_at))
    )
  let latest = 0
  const load = async () => {
    const started = ++latest
    try {
      const { fleet } = await api((c) => c.waves.fleet())
      // an older answer arriving last must not overwrite a newer one
      if (started !== latest) return
      const mine = fleet.filter((m) => !m.is_me)
      rows.clear()
      for (const m of mine) rows.set(m.handle, row(m))
      fill(
        list,
        mine.length === 0
          ? h("p", { class: "muted" }, "No agents yet: create one in Settings.")
          : table("Your agents", ["Handle", "Name", "Presence", "Last heartbeat"], [...rows.values()])
      )
    } catch (e) {
      fill(list, h("p", { class: "error", role: "alert" }, `Could not load the fleet: ${(e as Error).message}`))
    }
  }
  const stop = onEvent((event) => {
    if (event.type !== "presence.changed") return
    const tr = rows.get(event.data.handle)
    if (tr === undefined) return void load()
    latest++ // a list asked for before this event is older than it
    const connected = event.data.state === "connected"
    fill(tr.querySelector(".presence")!, presence(connected))
    if (connected) fill(tr.querySelector(".heartbeat")!, when(event.created_at))
  })
  void load()
  const refresh = h("button", { type: "button", onclick: () => void load() }, "Refresh")
  return { el: section("Agents", h("div", { class: "actions" }, refresh), list), stop }
}

export const fleetPage: Page = {
  title: "Fleet",
  render: () => {
    const w = wave()
    const a = agents()
    return {
      content: [h("h1", { tabindex: -1 }, "Fleet"), w.el, a.el],
      cleanup: () => {
        w.stop()
        a.stop()
      }
    }
  }
}
