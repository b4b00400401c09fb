/**
 * Event sockets waiting for their auth frame, counted per peer address. Past `cap`, an address's next upgrade
 * without a key is refused (429) instead of opened: a client that opens sockets and never authenticates holds at
 * most `cap` of them, each until the auth deadline (bench/README.md, hostile, ws-unauthenticated). A socket with its
 * key in a header is checked at the upgrade and never waits here.
 */
export class PendingAuth {
  private readonly counts = new Map<string, number>()

  /** `cap` 0: no limit; `strike` is told of each address refused */
  constructor(readonly cap: number, private readonly strike: (address: string | undefined) => void = () => {}) {}

  /** Whether an upgrade without a key from `address` is refused: it has `cap` sockets waiting (a strike). */
  readonly refuses = (address: string | undefined): boolean => {
    if (this.cap <= 0 || address === undefined || (this.counts.get(address) ?? 0) < this.cap) return false
    this.strike(address)
    return true
  }

  /** A socket from `address` starts waiting for its auth frame. */
  enter(s: { pendingFrom: string | undefined }, address: string | undefined): void {
    if (address === undefined) return
    s.pendingFrom = address
    this.counts.set(address, (this.counts.get(address) ?? 0) + 1)
  }

  /** The socket authenticated or closed: it waits no more (once). */
  settle(s: { pendingFrom: string | undefined }): void {
    const address = s.pendingFrom
    if (address === undefined) return
    s.pendingFrom = undefined
    const left = (this.counts.get(address) ?? 0) - 1
    if (left <= 0) this.counts.delete(address)
    else this.counts.set(address, left)
  }
}

/** seconds a refused address is told to wait: about the time its waiting sockets take to reach their deadline */
export const pendingRetryAfter = 10

export const pendingRefusalMessage =
  `too many event sockets from this address are waiting to authenticate; retry after ${pendingRetryAfter} s`
