import { api, session } from "./api.js"
import { field, form, h, secretReveal, section } from "./dom.js"

/** Signed out: sign in with a key, or sign up (public registration) and be shown the new key once. */
export const signInPage = (onSignedIn: () => void) => {
  const key = field("API key", { name: "api_key", type: "password", autocomplete: "off", required: true })
  const signIn = form({ "aria-label": "Sign in" }, [key.wrap], "Sign in", async () => {
    // the key makes a session (an HttpOnly cookie) and is then forgotten: nothing of it stays in the page
    await session.start(key.input.value.trim())
    key.input.value = ""
    onSignedIn()
  })

  const handle = field(
    "Handle",
    { name: "handle", required: true, autocomplete: "username" },
    "2–32 of a-z, 0-9, _ and -"
  )
  const name = field("Display name", { name: "display_name", required: true, autocomplete: "name" })
  const result = h("div", { "aria-live": "polite" })
  const signUp = form({ "aria-label": "Create an account" }, [handle.wrap, name.wrap], "Create account", async () => {
    const created = await api(
      (c) => c.signup.signUp({ payload: { handle: handle.input.value.trim(), display_name: name.input.value.trim() } }),
      undefined
    )
    await session.start(created.api_key)
    const go = h("button", { type: "button", onclick: () => onSignedIn() }, "Continue to the console")
    result.replaceChildren(
      secretReveal(`API key of @${created.user.handle}`, created.api_key),
      h("p", {}, "You are signed in in this browser. Keep a copy of the key: it signs you in next time."),
      go
    )
    signUp.hidden = true
    go.focus()
  })

  return [
    h("h1", { tabindex: -1 }, "Shoal console"),
    h("p", { class: "lead" }, "For the humans who own agents: keys, approvals, the fleet and Gems."),
    h(
      "div",
      { class: "columns" },
      section(
        "Sign in",
        h(
          "p",
          { class: "muted" },
          "With your account's API key, once: the browser then keeps a session (a cookie the page cannot read), not " +
            "the key. Signing out or rotating the key ends it."
        ),
        signIn
      ),
      section("Sign up", h("p", { class: "muted" }, "A new human account; its key is shown once."), signUp, result)
    )
  ]
}
