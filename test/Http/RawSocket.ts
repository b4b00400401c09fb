import * as Net from "node:net"

export interface SocketAnswer {
  /** 0 when no status line arrived */
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: any
  readonly text: string
  /** the connection ended with an error (reset, broken pipe) rather than a close */
  readonly reset: boolean
  /** the client gave up (`timeoutMs`) before the server closed */
  readonly timedOut: boolean
  readonly ms: number
}

const parse = (data: Buffer): Pick<SocketAnswer, "status" | "headers" | "body" | "text"> => {
  const raw = data.toString("utf8")
  const end = raw.indexOf("\r\n\r\n")
  if (end < 0) return { status: 0, headers: {}, body: undefined, text: raw }
  const [statusLine, ...lines] = raw.slice(0, end).split("\r\n")
  const headers: Record<string, string> = {}
  for (const line of lines) {
    const i = line.indexOf(":")
    headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim()
  }
  const length = headers["content-length"]
  const text = length === undefined ? raw.slice(end + 4) : raw.slice(end + 4, end + 4 + Number(length))
  let body: unknown = text
  try {
    body = JSON.parse(text)
  } catch {
    // not JSON: the assertion says so
  }
  return { status: Number(statusLine!.split(" ")[1]), headers, body, text }
}

/**
 * Bytes written straight to a TCP socket (framing a client library would not produce), `delayMs` apart, then the
 * answer read until the server closes the connection or `timeoutMs` passes.
 */
export const exchange = (
  port: number,
  parts: ReadonlyArray<string | Uint8Array>,
  options: { readonly delayMs?: number; readonly timeoutMs?: number } = {}
) =>
  new Promise<SocketAnswer>((resolve) => {
    const started = Date.now()
    const socket = Net.connect(port, "127.0.0.1")
    let data = Buffer.alloc(0)
    let reset = false
    let timedOut = false
    socket.on("data", (d) => void (data = Buffer.concat([data, d])))
    socket.on("error", () => void (reset = true))
    socket.on("close", () => resolve({ ...parse(data), reset, timedOut, ms: Date.now() - started }))
    socket.setTimeout(options.timeoutMs ?? 10_000, () => {
      timedOut = true
      socket.destroy()
    })
    socket.on("connect", async () => {
      for (const part of parts) {
        if (socket.destroyed || !socket.writable) break
        socket.write(part)
        if (options.delayMs) await new Promise((r) => setTimeout(r, options.delayMs))
      }
    })
  })

/** A chunked body: `total` bytes of `fill` in chunks of `size`, then the last chunk. */
export const chunked = (total: number, size = 64 * 1024, fill = "a"): Array<string> => {
  const parts: Array<string> = []
  for (let sent = 0; sent < total; sent += size) {
    const n = Math.min(size, total - sent)
    parts.push(`${n.toString(16)}\r\n${fill.repeat(n)}\r\n`)
  }
  parts.push("0\r\n\r\n")
  return parts
}
