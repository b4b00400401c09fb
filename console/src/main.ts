import { agentPage } from "./agent.js"
import { api, session } from "./api.js"
import { fill, h } from "./dom.js"
import { fleetPage } from "./fleet.js"
import { inboxPage, prefetchInbox } from "./inbox.js"
import type { Context, Page } from "./page.js"
import { settingsPage } from "./settings.js"
import { signInPage } from "./signin.js"
import * as Events from "./stream.js"
import { workPage } from "./work.js"

const PAGES: Record<string, Page> = {
  fleet: fleetPage,
  inbox: inboxPage,
  work: workPage,
  settings: settingsPage,
  // one agent: /console/agents/<handle>, reached from the fleet (not in the navigation)
  agents: agentPage
}
const ORDER = ["fleet", "inbox", "work", "settings"] as const

const header = document.getElementById("top")!
const main = document.getElementById("main")!
let cleanup: (() => void) | undefined
let context: Context | undefined

const current = () => {
  const name = location.pathname.replace(/^\/console\/?/, "").split("/")[0] ?? ""
  return name in PAGES ? name : "fleet"
}

/** Links within the console change the page without reloading it (the event stream stays connected). */
const navigate = (path: string) => {
  history.pushState(null, "", path)
  void render()
}

const nav = (active: string, me: Context["me"]) => {
  const status = h("span", { class: "muted stream-status", role: "status" })
  const stopStatus = Events.onStatus((s) => (status.textContent = s))
  const links = ORDER.map((name) =>
    h(
      "a",
      {
        href: `/console/${name}`,
        "aria-current": name === active ? "page" : undefined,
        onclick: (e: Event) => {
          e.preventDefault()
          navigate(`/console/${name}`)
        }
      },
      PAGES[name]!.title
    )
  )
  fill(
    header,
    h(
      "div",
      { class: "bar" },
      h("a", { class: "brand", href: "/console/fleet" }, "Shoal"),
      h("nav", { "aria-label": "Console" }, links),
      h(
        "div",
        { class: "who" },
        h("span", {}, `@${me.handle}`),
        h("button", { type: "button", class: "link", onclick: () => context?.signOut() }, "Sign out")
      )
    ),
    status
  )
  return stopStatus
}

const signedOut = (why?: string) => {
  Events.stop()
  header.replaceChildren()
  fill(main, signInPage(() => navigate("/console/fleet")))
  document.title = "Sign in · Shoal console"
  const box = main.querySelector("form .error") as HTMLElement | null
  if (why !== undefined && box !== null) {
    box.textContent = why
    box.hidden = false
  }
}

const render = async () => {
  cleanup?.()
  cleanup = undefined
  if (context === undefined) {
    // who the session's cookie is (the page cannot read the cookie, only ask): a refusal means signed out
    if (!session.maybe()) return signedOut()
    if (current() === "inbox") prefetchInbox()
    let me: Context["me"]
    try {
      me = (await api((c) => c.profiles.me())).user
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e)
      if (message.startsWith("Not signed in")) session.forget()
      return signedOut(message.startsWith("Not signed in") ? undefined : `Could not sign in: ${message}`)
    }
    context = {
      me,
      signOut: () => {
        context = undefined
        Events.stop()
        // the cookie is cleared by the answer; if the call fails the session still ends when it expires
        void session.end().catch(() => {}).finally(() => navigate("/console"))
      },
      rekey: async (newKey) => {
        await session.start(newKey)
        Events.start()
      }
    }
    Events.start()
  }
  const name = current()
  const page = PAGES[name]!
  const stopStatus = nav(name === "agents" ? "fleet" : name, context.me)
  const rendered = page.render(context)
  fill(
    main,
    context.me.user_type === "agent"
      ? h(
        "p",
        { class: "error", role: "alert" },
        "This is an agent's key: the console is for the humans who own agents, so most of it will refuse. Sign in with your own key."
      )
      : null,
    rendered.content
  )
  document.title = `${page.title} · Shoal console`
  cleanup = () => {
    stopStatus()
    rendered.cleanup?.()
  }
  // the page's heading takes the focus, so a screen reader announces where the link led
  main.querySelector<HTMLElement>("h1")?.focus()
}

addEventListener("popstate", () => void render())
// any link within the console (a fleet row's agent, the agent page's way back) changes the page without a reload
document.addEventListener("click", (e) => {
  const a = (e.target as Element | null)?.closest?.("a[href^='/console/']")
  if (!(a instanceof HTMLAnchorElement) || e.defaultPrevented || e.button !== 0) return
  if (e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return
  e.preventDefault()
  navigate(a.getAttribute("href")!)
})
void render()
