import type { Users } from "@shoal/domain"

/** What a page is given: who is signed in, and how to sign out. */
export interface Context {
  readonly me: Users.User
  readonly signOut: () => void
  /** after the own key was rotated: keep the tab signed in with the new one */
  readonly rekey: (key: string) => void
}

/** A page: its content, and what to stop when it is left (timers, event listeners). */
export interface Page {
  readonly title: string
  readonly render: (context: Context) => { readonly content: ReadonlyArray<Node>; readonly cleanup?: () => void }
}
