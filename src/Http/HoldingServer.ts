import type { IncomingMessage, ServerResponse } from "node:http"
import { createServer } from "node:http"

/**
 * A node server that holds requests arriving before the app's handler is attached. NodeHttpServer listens as its
 * layer is built, while the handler is attached only after the rest of the app has started; a request in that
 * window would otherwise get no answer at all (seen as a hung health check during start-up).
 */
export const createHoldingServer = () => {
  const server = createServer()
  const held: Array<[IncomingMessage, ServerResponse]> = []
  const hold = (req: IncomingMessage, res: ServerResponse) => void held.push([req, res])
  server.on("request", hold)
  const onListener = (event: string | symbol, listener: (req: IncomingMessage, res: ServerResponse) => void) => {
    if (event !== "request" || listener === hold) return
    server.off("request", hold)
    server.off("newListener", onListener)
    const waiting = held.splice(0)
    if (waiting.length > 0) setImmediate(() => waiting.forEach(([req, res]) => listener(req, res)))
  }
  server.on("newListener", onListener)
  return server
}
