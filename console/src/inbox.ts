import type { Gigs, Projects, Social, Tasks } from "@shoal/domain"
import { api, idempotent } from "./api.js"
import { act, errorBox, field, fill, h, section, when } from "./dom.js"
import type { Page } from "./page.js"
import { onEvent } from "./stream.js"

/** A list that loads itself, says so while loading, and shows a failure in words where the list would be. */
const loader = (empty: string, load: () => Promise<ReadonlyArray<Node>>) => {
  const el = h("div", { "aria-live": "polite", "aria-busy": "true" }, h("p", { class: "muted" }, "Loading…"))
  // reloads overlap (a decision, an event): only the latest started may draw, or an older answer could bring back
  // an item just decided
  let latest = 0
  const reload = async () => {
    const mine = ++latest
    el.setAttribute("aria-busy", "true")
    try {
      const items = await load()
      if (mine !== latest) return
      fill(el, items.length === 0 ? h("p", { class: "muted" }, empty) : h("ul", { class: "cards" }, items))
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

/** Two buttons deciding one item; either one's error shows under both. */
const decide = (
  buttons: ReadonlyArray<{ label: string; aria: string; run: () => Promise<unknown>; busy: string }>,
  done: () => Promise<void>
) => {
  const box = errorBox()
  const els = buttons.map((b) => {
    const button = h("button", { type: "button", "aria-label": b.aria }, b.label)
    button.addEventListener("click", () =>
      void act(button, box, async () => {
        await b.run()
        await done()
      }, b.busy))
    return button
  })
  return [h("div", { class: "actions" }, els), box]
}

const messageRequests = () => {
  const card = (r: Social.MessageRequest, reload: () => Promise<void>) =>
    h(
      "li",
      { class: "card", "data-request": r.id },
      h(
        "p",
        {},
        h("strong", {}, `@${r.sender_handle}`),
        ` → @${r.recipient_handle}`,
        h("span", { class: "muted" }, ` · ${when(r.created_at)}`)
      ),
      h("blockquote", {}, r.content),
      decide([
        {
          label: "Approve",
          aria: `Approve the message from @${r.sender_handle}`,
          busy: "Approving…",
          run: () => api((c) => c.messages.approveMessageRequest({ path: { request_id: r.id } }))
        },
        {
          label: "Decline",
          aria: `Decline the message from @${r.sender_handle}`,
          busy: "Declining…",
          run: () => api((c) => c.messages.declineMessageRequest({ path: { request_id: r.id } }))
        }
      ], reload)
    )
  const list = loader("No message requests.", async () => {
    const { requests } = await api((c) => c.messages.listMessageRequests())
    return requests.map((r) => card(r, list.reload))
  })
  return { el: section("Message requests", list.el), reload: list.reload }
}

const myProjects = async (): Promise<ReadonlyArray<Projects.Project>> =>
  (await api((c) => c.projects.listProjects({ urlParams: { mine: "true", limit: 1000 } }))).projects

const bounties = () => {
  const card = (task: Tasks.TaskDetail, project: Projects.Project, reload: () => Promise<void>) => {
    const note = field("Note (optional)", { name: "note", maxlength: 10000 })
    return h(
      "li",
      { class: "card", "data-task": task.id },
      h("h3", {}, task.title),
      h(
        "p",
        {},
        `${project.title} · done by ${task.assigned_to ? `@${task.assigned_to.handle}` : "nobody"} · `,
        h("strong", { class: "gems" }, `${task.gem_bounty} Gems at stake`)
      ),
      task.completion_note ? h("p", {}, h("em", {}, "Completion note: "), task.completion_note) : null,
      task.description ? h("p", { class: "muted" }, task.description) : null,
      task.comments.length === 0
        ? h("p", { class: "muted" }, "No comments.")
        : h(
          "details",
          {},
          h("summary", {}, `${task.comments.length} comment(s)`),
          h("ul", {}, task.comments.map((c) => h("li", {}, h("strong", {}, `@${c.author_handle}: `), c.content)))
        ),
      note.wrap,
      decide([
        {
          label: "Approve",
          aria: `Approve “${task.title}” and pay ${task.gem_bounty} Gems`,
          busy: "Approving…",
          run: () =>
            api((c) =>
              c.tasks.approveTask({
                path: { task_id: task.id },
                payload: note.input.value.trim() === "" ? {} : { note: note.input.value.trim() },
                headers: idempotent()
              })
            )
        },
        {
          label: "Reject",
          aria: `Reject “${task.title}”`,
          busy: "Rejecting…",
          run: () =>
            api((c) =>
              c.tasks.rejectTask({
                path: { task_id: task.id },
                payload: note.input.value.trim() === "" ? {} : { note: note.input.value.trim() },
                headers: idempotent()
              })
            )
        }
      ], reload)
    )
  }
  const list = loader("No completed bounties awaiting approval.", async () => {
    const projects = await myProjects()
    const perProject = await Promise.all(projects.map(async (project) => {
      const { tasks } = await api((c) =>
        c.tasks.listTasks({ path: { project_id: project.id }, urlParams: { status: "pending_approval" } })
      )
      const details = await Promise.all(tasks.map((t) => api((c) => c.tasks.getTask({ path: { task_id: t.id } }))))
      return details.map((d) => card(d.task, project, list.reload))
    }))
    return perProject.flat()
  })
  return { el: section("Bounties awaiting approval", list.el), reload: list.reload }
}

const gigApplications = () => {
  const card = (task: Tasks.Task, application: Gigs.Application, reload: () => Promise<void>) =>
    h(
      "li",
      { class: "card", "data-application": application.id },
      h(
        "p",
        {},
        h("strong", {}, `@${application.applicant_handle}`),
        application.verified ? " ✓ verified" : "",
        ` applied to “${task.title}” (${task.gem_bounty} Gems)`
      ),
      application.message ? h("blockquote", {}, application.message) : null,
      decide([{
        label: "Accept",
        aria: `Accept @${application.applicant_handle} for “${task.title}”`,
        busy: "Accepting…",
        run: () => api((c) => c.gigs.acceptApplication({ path: { task_id: task.id, application_id: application.id } }))
      }], reload)
    )
  const list = loader("No gig applications waiting.", async () => {
    const projects = await myProjects()
    const perProject = await Promise.all(projects.map(async (project) => {
      const { tasks } = await api((c) =>
        c.tasks.listTasks({ path: { project_id: project.id }, urlParams: { limit: 1000 } })
      )
      const open = tasks.filter((t) => t.gem_bounty > 0 && t.assigned_to_id === null)
      const lists = await Promise.all(open.map(async (task) => {
        const { applications } = await api((c) => c.gigs.listApplications({ path: { task_id: task.id } }))
        return applications.filter((a) => a.status === "pending").map((a) => card(task, a, list.reload))
      }))
      return lists.flat()
    }))
    return perProject.flat()
  })
  return { el: section("Gig applications", list.el), reload: list.reload }
}

export const inboxPage: Page = {
  title: "Inbox",
  render: () => {
    const requests = messageRequests()
    const tasks = bounties()
    const gigs = gigApplications()
    // a decision that arrives while the page is open shows up without a reload
    const stop = onEvent((event) => {
      if (event.type === "message.received") void requests.reload()
      if (event.type === "gig.application") void gigs.reload()
      if (event.type.startsWith("task.")) void tasks.reload()
    })
    return {
      content: [h("h1", { tabindex: -1 }, "Inbox of decisions"), requests.el, tasks.el, gigs.el],
      cleanup: stop
    }
  }
}
