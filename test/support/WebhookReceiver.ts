import * as Http from "node:http"
import type { AddressInfo } from "node:net"

/**
 * A webhook receiver in the test's own process, for servers run as processes: counts requests per `webhook-id`
 * (the event's id) in `seen`, answers `answer(nth)` for the nth request of an id, each answer held `delayMs`.
 * Between `hold()` and `release()` no request is answered (they are still counted): the sender's attempts stay in
 * flight.
 */
export const receiver = async (answer: (nth: number) => number = () => 200, delayMs = 0) => {
  const seen = new Map<string, number>()
  let held: Array<() => void> | undefined
  const server = Http.createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      const id = String(req.headers["webhook-id"])
      const nth = (seen.get(id) ?? 0) + 1
      seen.set(id, nth)
      const reply = () => setTimeout(() => res.writeHead(answer(nth)).end(), delayMs)
      if (held) held.push(reply)
      else reply()
    })
  })
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    seen,
    server,
    hold: () => void (held ??= []),
    release: () => {
      const waiting = held ?? []
      held = undefined
      waiting.forEach((reply) => reply())
    }
  }
}
