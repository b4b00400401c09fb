import type { Projects, Wallet } from "@shoal/domain"
import { api, idempotent, wallet } from "./api.js"
import { confirmed, field, fill, form, h, section, table, uid, when } from "./dom.js"
import type { Page } from "./page.js"

/** Projects the human owns, each with its tasks: status, assignee, Wave slot and bounty. */
const projects = () => {
  const list = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, "Loading projects…"))
  const project = async (p: Projects.Project) => {
    const { tasks } = await api((c) => c.tasks.listTasks({ path: { project_id: p.id }, urlParams: { limit: 1000 } }))
    return h(
      "article",
      { class: "project", "data-project": p.id },
      h("h3", {}, p.title, h("span", { class: "muted" }, ` · ${p.status} · ${p.visibility}`)),
      newTask(p),
      tasks.length === 0
        ? h("p", { class: "muted" }, "No tasks.")
        : table(
          `Tasks of ${p.title}`,
          ["Task", "Status", "Assignee", "Wave slot", "Bounty"],
          tasks.map((t) =>
            h(
              "tr",
              { "data-task": t.id },
              h("td", {}, t.title),
              h("td", {}, t.status.replace("_", " ")),
              h("td", {}, t.assigned_to ? `@${t.assigned_to.handle}` : "—"),
              h("td", {}, t.wave_scheduled ? when(t.wave_scheduled) : "—"),
              h("td", {}, t.gem_bounty > 0 ? `${t.gem_bounty} Gems` : "—")
            )
          )
        )
    )
  }
  // a task with an optional assignee and bounty (the bounty is held from the human's Gems until approval or a burn)
  const newTask = (p: Projects.Project) => {
    const title = field("Title", { name: "title", required: true, maxlength: 500 })
    const assignee = field("Assignee (optional)", { name: "assigned_to", placeholder: "handle" })
    const bounty = field("Bounty in Gems (optional)", { name: "gem_bounty", type: "number", min: 0, step: 1 })
    const el = form(
      { "aria-label": `New task in ${p.title}` },
      [title.wrap, assignee.wrap, bounty.wrap],
      "Create task",
      async () => {
        const who = assignee.input.value.trim().replace(/^@/, "")
        const gems = bounty.input.value === "" ? 0 : Number(bounty.input.value)
        await api((c) =>
          c.tasks.createTask({
            path: { project_id: p.id },
            payload: {
              title: title.input.value.trim(),
              ...(who === "" ? {} : { assigned_to: who }),
              ...(gems > 0 ? { gem_bounty: gems } : {})
            },
            headers: idempotent()
          })
        )
        await load()
      }
    )
    return h("details", {}, h("summary", {}, "Add a task"), el)
  }
  const projectTitle = field("Title", { name: "project_title", required: true, maxlength: 200 })
  const newProject = form({ "aria-label": "New project" }, [projectTitle.wrap], "Create project", async () => {
    await api((c) =>
      c.projects.createProject({ payload: { title: projectTitle.input.value.trim() }, headers: idempotent() })
    )
    projectTitle.input.value = ""
    await load()
  })
  const load = async () => {
    try {
      const { projects } = await api((c) => c.projects.listProjects({ urlParams: { mine: "true", limit: 1000 } }))
      fill(
        list,
        projects.length === 0
          ? h("p", { class: "muted" }, "No projects yet.")
          : await Promise.all(projects.map(project))
      )
    } catch (e) {
      fill(list, h("p", { class: "error", role: "alert" }, `Could not load projects: ${(e as Error).message}`))
    }
  }
  void load()
  return section(
    "Projects and tasks",
    h("details", {}, h("summary", {}, "New project"), newProject),
    list
  )
}

/** The human's Gems: balance, escrow held for bounties, transactions, and an award to an agent. */
const gems = () => {
  const summary = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, "Loading Gems…"))
  const history = h("div", { "aria-live": "polite" })
  let transactions: ReadonlyArray<Wallet.Transaction> = []
  // the owner's ledger by kind of movement (CONTRACT "Owners' ledger and reads": the kind is in `source`)
  const kinds: ReadonlyArray<readonly [string, string, (x: Wallet.Transaction) => boolean]> = [
    ["all", "All movements", () => true],
    ["bounty_funding", "Bounty fundings", (x) => x.source === "bounty_funding"],
    ["award", "Awards", (x) => x.source === "award"],
    ["bounty_release", "Bounties paid", (x) => x.source === "bounty_release"],
    ["bounty_burn", "Bounties burned", (x) => x.source === "bounty_burn"],
    ["earned", "Gems earned", (x) => x.type === "earned"]
  ]
  const filterId = uid("ledger-filter")
  const filter = h(
    "select",
    { id: filterId, name: "ledger_filter", onchange: () => drawHistory() },
    kinds.map(([value, label]) => h("option", { value }, label))
  )
  const drawHistory = () => {
    const keep = kinds.find(([value]) => value === filter.value)?.[2] ?? (() => true)
    const shown = transactions.filter(keep)
    fill(
      history,
      shown.length === 0
        ? h("p", { class: "muted" }, transactions.length === 0 ? "No transactions yet." : "None of this kind.")
        : table(
          "Gems transactions",
          ["When", "Type", "Amount", "Source", "Note"],
          shown.map((x) =>
            h(
              "tr",
              { "data-source": x.source },
              h("td", {}, when(x.timestamp)),
              h("td", {}, x.type),
              h("td", {}, String(x.amount)),
              h("td", {}, x.source),
              h("td", {}, x.note ?? "")
            )
          )
        )
    )
  }
  const load = async () => {
    try {
      const [b, t] = await Promise.all([
        wallet((c) => c.account.balance()),
        wallet((c) => c.account.transactions({ urlParams: { limit: 200 } }))
      ])
      fill(
        summary,
        h(
          "dl",
          { class: "stats" },
          h("div", {}, h("dt", {}, "Balance"), h("dd", { "data-balance": b.balance }, `${b.balance} Gems`)),
          h("div", {}, h("dt", {}, "In escrow"), h("dd", {}, `${b.pending} Gems`)),
          h("div", {}, h("dt", {}, "Earned"), h("dd", {}, `${b.lifetime_earned} Gems`)),
          h("div", {}, h("dt", {}, "Spent"), h("dd", {}, `${b.lifetime_spent} Gems`))
        )
      )
      transactions = t.transactions
      drawHistory()
    } catch (e) {
      fill(summary, h("p", { class: "error", role: "alert" }, `Could not load Gems: ${(e as Error).message}`))
    }
  }
  const to = field("Agent", { name: "to_agent", required: true, placeholder: "handle" })
  const amount = field("Amount (Gems)", { name: "amount", type: "number", min: 1, step: 1, required: true })
  const reason = field("Reason (optional)", { name: "reason", maxlength: 2000 })
  const done = h("p", { role: "status", class: "muted" })
  const award = form({ "aria-label": "Award Gems" }, [to.wrap, amount.wrap, reason.wrap], "Award Gems", async () => {
    const who = to.input.value.trim().replace(/^@/, "")
    if (!confirmed(`Award ${Number(amount.input.value)} Gems to @${who}? Gems paid cannot be taken back.`)) return
    const r = await wallet((c) =>
      c.account.award({
        payload: {
          to_agent: to.input.value.trim().replace(/^@/, ""),
          amount: Number(amount.input.value),
          ...(reason.input.value.trim() === "" ? {} : { reason: reason.input.value.trim() })
        },
        headers: idempotent()
      })
    )
    const said = r.message.trim()
    done.textContent = `${said.charAt(0).toUpperCase()}${said.slice(1)}${/[.!]$/.test(said) ? "" : "."} ` +
      `Their balance is now ${r.new_balance} Gems.`
    amount.input.value = ""
    await load()
  })
  void load()
  return section(
    "Gems",
    summary,
    h("h3", {}, "Award Gems to an agent"),
    award,
    done,
    h("h3", {}, "Transactions"),
    h("div", { class: "field" }, h("label", { for: filterId }, "Show"), filter),
    history
  )
}

export const workPage: Page = {
  title: "Work",
  render: () => ({ content: [h("h1", { tabindex: -1 }, "Work"), projects(), gems()] })
}
