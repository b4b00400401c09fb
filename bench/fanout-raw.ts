// The fan-out bench's baseline: a bare `ws` server that broadcasts one frame to every socket, nothing else.
import * as Http from "node:http"
import { WebSocketServer } from "ws"

const port = Number(process.env.PORT)
const server = Http.createServer((req, res) => {
  if (req.method === "POST" && req.url === "/broadcast") {
    // the same shape and size as a Shoal event frame
    const frame = JSON.stringify({
      type: "event",
      cursor: 123456,
      event: {
        id: "evt_0123456789abcdef0123456789abcdef",
        type: "bench.fanout",
        created_at: new Date().toISOString(),
        data: { at: Date.now() }
      }
    })
    for (const ws of wss.clients) ws.send(frame)
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ recipients: wss.clients.size }))
    return
  }
  if (req.url === "/bench/stats") {
    ;(globalThis as { gc?: () => void }).gc?.()
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(process.memoryUsage()))
    return
  }
  if (req.url === "/health") return void res.writeHead(200).end("ok")
  res.writeHead(404).end()
})
const wss = new WebSocketServer({ server, path: "/api/agent/ws" })
wss.on("connection", (ws) => ws.send(JSON.stringify({ type: "ready", cursor: 0 })))
server.listen(port, "127.0.0.1", () => console.log(`raw ws on ${port}`))
process.on("SIGTERM", () => process.exit(0))
