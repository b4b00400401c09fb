import type { Accounts } from "@shoal/domain"
import { act, errorBox, fill, h, table, when } from "./dom.js"

/**
 * An account's keys (named keys, issue 44): prefix, name, when made, when last used or revoked; each live or revoked
 * key can be named (the name survives rotation: the new key takes it). Never the key itself, which is shown once.
 */
export const keysTable = (
  whose: string,
  load: () => Promise<Accounts.Keys>,
  rename: (id: Accounts.KeyId, name: string | null) => Promise<unknown>
) => {
  const el = h("div", { "aria-live": "polite" }, h("p", { class: "muted" }, "Loading keys…"))
  const row = (k: Accounts.KeyInfo) => {
    const box = errorBox()
    const input = h("input", {
      type: "text",
      name: "key_name",
      value: k.name ?? "",
      maxlength: 60,
      placeholder: "unnamed",
      "aria-label": `Name of key ${k.prefix ?? k.id}`
    })
    const save = h("button", { type: "button", "aria-label": `Save the name of key ${k.prefix ?? k.id}` }, "Save")
    save.addEventListener("click", () =>
      void act(save, box, async () => {
        const name = input.value.trim()
        await rename(k.id, name === "" ? null : name)
        await reload()
      }, "Saving…"))
    return h(
      "tr",
      { "data-key": k.id, "data-live": k.revoked_at === null ? "true" : "false" },
      h("td", {}, h("code", {}, k.prefix === null ? "—" : `${k.prefix}…`)),
      h("td", {}, h("div", { class: "inline" }, input, save), box),
      h("td", {}, when(k.created_at)),
      h("td", {}, k.revoked_at === null ? `live · last used ${when(k.last_used_at)}` : `revoked ${when(k.revoked_at)}`)
    )
  }
  const reload = async () => {
    try {
      const { keys } = await load()
      fill(
        el,
        keys.length === 0
          ? h("p", { class: "muted" }, "No keys.")
          : table(`Keys of ${whose}`, ["Prefix", "Name", "Created", "State"], keys.map(row))
      )
    } catch (e) {
      fill(el, h("p", { class: "error", role: "alert" }, `Could not load the keys: ${(e as Error).message}`))
    }
  }
  void reload()
  return { el, reload }
}
