/** A few helpers over the DOM: the console is plain TypeScript, no framework. */

type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | EventListener | undefined>

/** An element with attributes (`on…` are listeners, `false`/`undefined` are left out) and children. */
export const h = <K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: ReadonlyArray<Child | ReadonlyArray<Child>>
): HTMLElementTagNameMap[K] => {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === false) continue
    if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value)
    else el.setAttribute(name, value === true ? "" : String(value))
  }
  append(el, children)
  return el
}

const append = (el: Element, children: ReadonlyArray<Child | ReadonlyArray<Child>>) => {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    el.append(child instanceof Node ? child : String(child))
  }
}

/** Replace an element's children. */
export const fill = (el: Element, ...children: ReadonlyArray<Child | ReadonlyArray<Child>>) => {
  el.replaceChildren()
  append(el, children)
}

let ids = 0
/** A unique id, for labels and `aria-describedby`. */
export const uid = (prefix: string) => `${prefix}-${++ids}`

/** A labelled input: the label names it for screen readers, `hint` is read after it. */
export const field = (
  label: string,
  attrs: Attrs & { name: string },
  hint?: string
): { readonly wrap: HTMLElement; readonly input: HTMLInputElement } => {
  const id = uid(attrs.name)
  const hintId = hint === undefined ? undefined : `${id}-hint`
  const input = h("input", { id, "aria-describedby": hintId, ...attrs })
  const wrap = h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    input,
    hint === undefined ? null : h("small", { id: hintId }, hint)
  )
  return { wrap, input }
}

/** Where an operation's error is shown, in words, next to what failed; announced to screen readers. */
export const errorBox = () => h("p", { class: "error", role: "alert", hidden: true })

export const showError = (box: HTMLElement, message: string | undefined) => {
  box.textContent = message ?? ""
  box.hidden = message === undefined
}

/**
 * Run an operation from a button or form: the button is disabled and says it is working while it runs (progress),
 * the error box under it says what went wrong, in the API's words.
 */
export const act = async <A>(
  button: HTMLButtonElement,
  box: HTMLElement,
  operation: () => Promise<A>,
  busy = "Working…"
): Promise<A | undefined> => {
  const label = button.textContent
  button.disabled = true
  button.setAttribute("aria-busy", "true")
  button.textContent = busy
  showError(box, undefined)
  try {
    return await operation()
  } catch (e) {
    showError(box, e instanceof Error ? e.message : String(e))
    return undefined
  } finally {
    button.disabled = false
    button.removeAttribute("aria-busy")
    button.textContent = label
  }
}

/**
 * Ask before an action that cannot be undone (a key rotation, a payout): the browser's own confirmation dialog, which
 * every screen reader and keyboard handles, with the consequence in words. False when the human declines.
 */
export const confirmed = (message: string) => globalThis.confirm(message)

/** A form whose submit runs `operation` through `act`, its submit button showing progress. */
export const form = (
  attrs: Attrs,
  fields: ReadonlyArray<Child>,
  submitLabel: string,
  operation: () => Promise<unknown>
) => {
  const box = errorBox()
  const submit = h("button", { type: "submit" }, submitLabel)
  const el = h("form", attrs, ...fields, h("div", { class: "actions" }, submit), box)
  el.addEventListener("submit", (event) => {
    event.preventDefault()
    void act(submit, box, operation)
  })
  return el
}

/** A secret shown once (a new API key or webhook secret), with a copy button and a warning it will not return. */
export const secretReveal = (
  title: string,
  secret: string,
  note = "Shown this once: only a hash is stored. Copy it now."
) => {
  const code = h("code", { class: "secret", "data-secret": "" }, secret)
  const status = h("span", { role: "status", class: "muted" })
  const copy = h("button", { type: "button" }, "Copy")
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(secret)
      status.textContent = "Copied."
    } catch {
      // clipboard access can be refused (an insecure origin, a denied permission): select it for a manual copy
      const range = document.createRange()
      range.selectNodeContents(code)
      getSelection()?.removeAllRanges()
      getSelection()?.addRange(range)
      status.textContent = "Selected: press Ctrl+C (⌘C) to copy."
    }
  })
  return h(
    "div",
    { class: "reveal", role: "region", "aria-label": title },
    h("strong", {}, title),
    h("p", { class: "muted" }, note),
    h("div", { class: "secret-row" }, code, copy, status)
  )
}

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "never")

/** A section with a heading, for the pages' parts; `aria-labelledby` names it for landmarks. */
export const section = (title: string, ...children: ReadonlyArray<Child | ReadonlyArray<Child>>) => {
  const id = uid("section")
  return h("section", { "aria-labelledby": id }, h("h2", { id }, title), ...children)
}

/** A table whose rows scroll sideways on a narrow screen instead of overflowing the page. */
export const table = (caption: string, head: ReadonlyArray<string>, rows: ReadonlyArray<HTMLTableRowElement>) =>
  h(
    "div",
    { class: "table-wrap", tabindex: 0, role: "region", "aria-label": caption },
    h(
      "table",
      {},
      h("caption", { class: "sr-only" }, caption),
      h("thead", {}, h("tr", {}, head.map((c) => h("th", { scope: "col" }, c)))),
      h("tbody", {}, labelled(head, rows))
    )
  )

/** Each cell names its column, so a narrow screen can show a row as a card of "column: value" lines. */
const labelled = (head: ReadonlyArray<string>, rows: ReadonlyArray<HTMLTableRowElement>) => {
  for (const row of rows) {
    Array.from(row.cells).forEach((cell, i) => {
      if (head[i]) cell.setAttribute("data-label", head[i]!)
    })
  }
  return rows
}
