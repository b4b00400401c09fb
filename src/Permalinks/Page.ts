import type { Projects, Social, Tasks } from "@shoal/domain"

/** Text for HTML: everything a record holds was written by someone else. */
export const escape = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const row = (name: string, value: string | number | null | undefined) =>
  value === null || value === undefined || value === ""
    ? ""
    : `<dt>${escape(name)}</dt><dd>${escape(String(value))}</dd>`

const paragraphs = (text: string) =>
  text.trim() === "" ? "" : text.split(/\n{2,}/).map((p) => `<p class="pre">${escape(p)}</p>`).join("")

/** A task's or a post's comments under their heading, or nothing. */
const commentList = (comments: ReadonlyArray<Tasks.TaskComment | Social.PostComment>) =>
  comments.length === 0 ?
    "" :
    `<h2>Comments</h2>${
      comments.map((c) =>
        `<section><p class="muted">@${escape(c.author_handle)} · ${escape(c.created_at)}</p>${
          paragraphs(c.content)
        }</section>`
      ).join("")
    }`

/** A whole page: the console's stylesheet, no inline script or style (the page's CSP allows neither). */
export const page = (title: string, body: string, script?: string) =>
  `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${escape(title)} · Shoal</title>
    <link rel="icon" href="data:,">
    <link rel="stylesheet" href="/console/style.css">${
    script === undefined ? "" : `\n    <script type="module" src="${escape(script)}"></script>`
  }
  </head>
  <body>
    <header id="top"><div class="bar"><a class="brand" href="/console">Shoal</a></div></header>
    <main id="main">${body}
      <p class="muted"><a href="/console">Open the Shoal console</a></p>
    </main>
  </body>
</html>
`

export const projectPage = (p: Projects.Project) =>
  page(
    p.title,
    `<article><h1>${escape(p.title)}</h1><p class="muted">Project</p>
      <dl>${row("Status", p.status)}${row("Visibility", p.visibility)}${row("Deadline", p.deadline)}${
      row("Skills", p.skills.join(", "))
    }${row("Squad", p.team_name)}</dl>
      ${paragraphs(p.description)}
      <p><a href="${escape(p.permalink)}/tasks">Its tasks (API)</a></p></article>`
  )

export const taskPage = (t: Tasks.TaskDetail, projectPermalink: string) =>
  page(
    t.title,
    `<article><h1>${escape(t.title)}</h1><p class="muted">Task of <a href="${
      escape(projectPermalink)
    }">a project</a></p>
      <dl>${row("Status", t.status)}${row("Assigned to", t.assigned_to?.handle && `@${t.assigned_to.handle}`)}${
      row("Deadline", t.deadline)
    }${row("Wave", t.wave_scheduled)}${row("Gem bounty", t.gem_bounty > 0 ? t.gem_bounty : null)}${
      row("Recurrence", t.recurrence)
    }</dl>
      ${paragraphs(t.description)}
      ${
      t.checklist.length === 0
        ? ""
        : `<h2>Checklist</h2><ul>${
          t.checklist.map((i) => `<li>${i.is_checked ? "☑" : "☐"} ${escape(i.text)}</li>`).join("")
        }</ul>`
    }
      ${commentList(t.comments)}</article>`
  )

export const postPage = (p: Social.Post, comments: ReadonlyArray<Social.PostComment>) =>
  page(
    `Post by @${p.author_handle}`,
    `<article><p class="muted">@${escape(p.author_handle)} (${escape(p.author.display_name)}) · ${
      escape(p.created_at)
    } · score ${p.score}</p>
      ${paragraphs(p.content)}
      ${
      p.media.length === 0
        ? ""
        : `<ul>${
          p.media.map((m) => `<li><a href="${escape(m)}" rel="nofollow noopener">${escape(m)}</a></li>`).join("")
        }</ul>`
    }
      ${commentList(comments)}</article>`
  )

/**
 * What a visitor without a key sees of a private (or missing) resource: the same page either way, so it tells
 * nothing. A console user signed in in this tab has its key in session storage: the script asks for the JSON
 * with that key and shows what the API answers.
 */
export const notFoundPage = () =>
  page(
    "Not found",
    `<article id="permalink"><h1>Not found</h1>
      <p>Nothing here is public. If it is private and you may see it, sign in to the
      <a href="/console">console</a> in this tab and open this link again.</p></article>`,
    PERMALINK_SCRIPT_PATH
  )

export const PERMALINK_SCRIPT_PATH = "/permalink.js"

/** The loader behind `notFoundPage`: text only (textContent), never HTML from the record. */
export const permalinkScript = `const key = sessionStorage.getItem("shoal.apiKey")
const box = document.getElementById("permalink")
if (key && box) {
  const res = await fetch(location.pathname, { headers: { accept: "application/json", authorization: "Bearer " + key } })
  if (res.ok) {
    const body = await res.json()
    const thing = body.task ?? body.project ?? body.post ?? {}
    const h1 = document.createElement("h1")
    h1.textContent = thing.title ?? (thing.author_handle ? "Post by @" + thing.author_handle : "")
    const meta = document.createElement("p")
    meta.className = "muted"
    meta.textContent = [thing.status, thing.visibility, thing.deadline].filter(Boolean).join(" · ")
    const text = document.createElement("p")
    text.className = "pre"
    text.textContent = thing.description ?? thing.content ?? ""
    box.replaceChildren(h1, meta, text)
    document.title = h1.textContent + " · Shoal"
  }
}
`
