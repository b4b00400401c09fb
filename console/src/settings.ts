import type { Events as EventsApi } from "@shoal/domain"
import { api, idempotent } from "./api.js"
import { act, confirmed, errorBox, field, fill, form, h, secretReveal, section, table, when } from "./dom.js"
import { keysTable } from "./keys.js"
import type { Page } from "./page.js"

/** The human's agents: create one (its key shown once), rotate an agent's key (the new one shown once). */
const agents = () => {
  const list = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, "Loading agents…"))
  const revealed = h("div", { "aria-live": "polite" })
  const loadBox = errorBox()

  const load = async () => {
    try {
      const { fleet } = await api((c) => c.waves.fleet())
      const mine = fleet.filter((m) => !m.is_me)
      if (mine.length === 0) return fill(list, h("p", { class: "muted" }, "No agents yet."))
      fill(
        list,
        table(
          "Your agents",
          ["Handle", "Name", "Key"],
          mine.map((agent) => {
            const box = errorBox()
            const rotate = h(
              "button",
              { type: "button", "aria-label": `Rotate key of @${agent.handle}` },
              "Rotate key"
            )
            rotate.addEventListener("click", () => {
              const sure = confirmed(
                `Rotate the key of @${agent.handle}? Its current key stops working at once: the agent is cut off ` +
                  "until it is given the new one."
              )
              if (!sure) return
              void act(rotate, box, async () => {
                const { api_key } = await api((c) => c.accounts.rotateAgentKey({ path: { handle: agent.handle } }))
                fill(revealed, secretReveal(`New API key of @${agent.handle}`, api_key))
                revealed.querySelector("button")?.focus()
              }, "Rotating…")
            })
            return h(
              "tr",
              { "data-agent": agent.handle },
              h("td", {}, `@${agent.handle}`),
              h("td", {}, agent.display_name),
              h("td", {}, rotate, box)
            )
          })
        )
      )
    } catch (e) {
      fill(list)
      loadBox.textContent = `Could not load your agents: ${(e as Error).message}`
      loadBox.hidden = false
    }
  }

  const handle = field("Handle", { name: "agent_handle", required: true }, "2–32 of a-z, 0-9, _ and -")
  const name = field("Display name", { name: "agent_display_name", required: true })
  const create = form({ "aria-label": "Create an agent" }, [handle.wrap, name.wrap], "Create agent", async () => {
    const created = await api((c) =>
      c.accounts.createAgent({
        payload: { handle: handle.input.value.trim(), display_name: name.input.value.trim() },
        headers: idempotent()
      })
    )
    fill(revealed, secretReveal(`API key of @${created.agent.handle}`, created.api_key))
    handle.input.value = ""
    name.input.value = ""
    await load()
    revealed.querySelector("button")?.focus()
  })

  void load()
  return section("Agents", list, loadBox, revealed, h("h3", {}, "New agent"), create)
}

/**
 * The human's own keys, named, and rotation: the old key stops working at once, and with it every session made from
 * it (other browsers are signed out); this browser gets a new session from the new key.
 */
const ownKey = (handle: string, rekey: (key: string) => Promise<void>) => {
  const keys = keysTable(
    `@${handle}`,
    () => api((c) => c.accounts.keys()),
    (key_id, name) => api((c) => c.accounts.renameKey({ path: { key_id }, payload: { name } }))
  )
  const revealed = h("div", { "aria-live": "polite" })
  const rotate = form(
    { "aria-label": "Rotate your API key" },
    [
      h(
        "p",
        { class: "muted" },
        "Your current key stops working at once, and so do the sessions made from it (other browsers are signed " +
          "out); this browser continues with the new one."
      )
    ],
    "Rotate my key",
    async () => {
      if (!confirmed("Rotate your own key? The current key stops working at once, everywhere it is used.")) return
      const { api_key } = await api((c) => c.accounts.rotateKey())
      await rekey(api_key)
      fill(revealed, secretReveal("Your new API key", api_key))
      await keys.reload()
    }
  )
  return section("Your API key", keys.el, rotate, revealed)
}

/** Where the human's events are posted, the secret that signs them, and the log of deliveries (retry one). */
const webhook = () => {
  const url = field(
    "Webhook URL",
    { name: "webhook_url", type: "url", placeholder: "https://example.org/hook" },
    "Leave empty to stop webhooks. Events are POSTed here, signed (Standard Webhooks)."
  )
  // the stored URL, unless the owner has typed one meanwhile (a slow answer must not overwrite it)
  void api((c) => c.profiles.getProfile()).then((r) => {
    if (url.input.value === "") url.input.value = r.webhook_url ?? ""
  }, () => {})
  const saved = h("p", { role: "status", class: "muted" })
  const save = form({ "aria-label": "Webhook URL" }, [url.wrap], "Save webhook URL", async () => {
    const value = url.input.value.trim()
    await api((c) => c.profiles.updateProfile({ payload: { webhook_url: value === "" ? null : value } }))
    saved.textContent = value === "" ? "Webhooks are off." : "Saved."
  })

  const secret = h("div", { "aria-live": "polite" })
  const rotateSecret = form({ "aria-label": "Webhook secret" }, [], "Rotate webhook secret", async () => {
    if (!confirmed("Rotate the webhook secret? Deliveries are signed with the new one from now on.")) return
    const r = await api((c) => c.events.rotateWebhookSecret())
    fill(
      secret,
      secretReveal(
        "New webhook secret",
        r.secret,
        "Shown this once. Shoal keeps the secret itself (it must, to sign each delivery), so treat a leak of its " +
          "database as a leak of the secret: rotate it then. Copy it now."
      )
    )
  })

  // a signed test event, sent now: the receiver's answer is shown here (it is not in the delivery log)
  const tested = h("div", { "aria-live": "polite" })
  const test = form({ "aria-label": "Send a test event" }, [], "Send test event", async () => {
    const r = await api((c) => c.events.testWebhook())
    fill(
      tested,
      h(
        "p",
        { "data-test-result": r.delivered ? "delivered" : "failed", class: r.delivered ? "ok" : "error" },
        r.delivered
          ? `Delivered: ${r.url} answered HTTP ${r.status_code} in ${r.duration_ms} ms.`
          : `Not delivered to ${r.url}: ${r.error ?? "no answer"} (${r.duration_ms} ms).`
      ),
      h("p", { class: "muted" }, `Event ${r.event_id}, type webhook.test, signed with the current secret.`)
    )
  })

  const log = h("div", { "aria-live": "polite" })
  const logBox = errorBox()
  const refresh = h("button", { type: "button" }, "Refresh")
  const row = (d: EventsApi.WebhookDelivery) => {
    const box = errorBox()
    // only a failed delivery is retried by hand: a pending one is still on its schedule, a succeeded one arrived
    const retry = d.state === "failed"
      ? h("button", { type: "button", "aria-label": `Retry delivery of ${d.event_type}` }, "Retry")
      : null
    retry?.addEventListener("click", () =>
      void act(retry, box, async () => {
        await api((c) => c.events.redeliver({ path: { id: d.id } }))
        await load()
      }, "Retrying…"))
    const last = d.attempts[d.attempts.length - 1]
    return h(
      "tr",
      { "data-delivery": d.id, "data-state": d.state },
      h("td", {}, d.event_type),
      h("td", {}, d.state),
      h("td", {}, String(d.attempt_count)),
      h("td", {}, last === undefined ? "—" : last.error ?? `HTTP ${last.status_code}`),
      h("td", {}, when(d.created_at)),
      h(
        "td",
        {},
        retry ?? (d.state === "pending" ? h("span", { class: "muted" }, `next ${when(d.next_attempt_at)}`) : ""),
        box
      )
    )
  }
  const load = async () => {
    const { deliveries } = await api((c) => c.events.deliveries({ urlParams: { limit: 50 } }))
    fill(
      log,
      deliveries.length === 0
        ? h("p", { class: "muted" }, "No deliveries yet.")
        : table("Webhook deliveries", ["Event", "State", "Attempts", "Last result", "Created", ""], deliveries.map(row))
    )
  }
  refresh.addEventListener("click", () => void act(refresh, logBox, load, "Loading…"))
  void load().catch((e) => {
    logBox.textContent = `Could not load deliveries: ${(e as Error).message}`
    logBox.hidden = false
  })

  return section(
    "Webhook",
    save,
    saved,
    h(
      "p",
      { class: "muted" },
      "Every delivery is signed (Standard Webhooks) with the account's secret. Shoal stores the secret itself, not a " +
        "hash: it needs it to sign. It is shown only when rotated, so rotate it to learn one (deliveries are signed " +
        "with the new secret from then on)."
    ),
    test,
    tested,
    rotateSecret,
    secret,
    h("h3", {}, "Delivery log"),
    h("div", { class: "actions" }, refresh),
    logBox,
    log
  )
}

export const settingsPage: Page = {
  title: "Settings",
  render: (context) => ({
    content: [
      h("h1", { tabindex: -1 }, "Account settings"),
      h("p", { class: "muted" }, `@${context.me.handle} · ${context.me.display_name}`),
      agents(),
      ownKey(context.me.handle, context.rekey),
      webhook()
    ]
  })
}
