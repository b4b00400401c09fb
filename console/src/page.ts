import type { Users } from "@shoal/domain"

/** What a page is given: who is signed in, and how to sign out. */
export interface Context {
  readonly me: Users.User
  readonly signOut: () => void
  /** after the own key was rotated (which ended the session made from it): a new session from the new key */
  readonly rekey: (key: string) => Promise<void>
}

/** A page: its content, and what to stop when it is left (timers, event listeners). */
export interface Page {
  readonly title: string
  readonly render: (context: Context) => { readonly content: ReadonlyArray<Node>; readonly cleanup?: () => void }
}
