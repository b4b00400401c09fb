import { describe, expect, it } from "@effect/vitest"
import type { AddressInfo } from "node:net"
import * as Net from "node:net"
import * as V8 from "node:v8"
import * as Vm from "node:vm"
import { createHoldingServer } from "../../src/Http/HoldingServer.js"

/** What a raw connection gets back for `input`, then `more` once something came back, until the server closes it. */
const exchange = (port: number, input: string, more?: string) =>
  new Promise<string>((resolve) => {
    const socket = Net.connect({ port, host: "127.0.0.1" })
    let data = ""
    socket.on("connect", () => socket.write(input))
    socket.on("data", (d) => {
      if (data === "" && more !== undefined) socket.write(more)
      data += d.toString("latin1")
    })
    socket.on("error", () => {})
    socket.on("close", () => resolve(data))
    setTimeout(() => socket.destroy(), 3_000).unref()
  })

describe("the holding server's answers to what Node refuses", () => {
  it("a request that fails to parse gets the JSON 400, unless a response is half written on its socket", async () => {
    const server = createHoldingServer()
    // headers at once, the body 300 ms later: a pipelined request that fails to parse arrives in between
    server.on("request", (_req, res) => {
      res.writeHead(200, { "content-length": 4 }).write("ab")
      setTimeout(() => res.end("cd"), 300)
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const port = (server.address() as AddressInfo).port
    try {
      const alone = await exchange(port, "NOT HTTP\r\n\r\n")
      expect(alone).toMatch(/^HTTP\/1.1 400 /)
      expect(alone).toContain("\"invalid_request\"")
      const behind = await exchange(port, "GET / HTTP/1.1\r\nhost: x\r\n\r\n", "NOT HTTP\r\n\r\n")
      // the half-written response is cut off, with no 400 spliced into its body
      expect(behind).toMatch(/^HTTP\/1.1 200 OK\r\n[^]*\r\n\r\nab$/)
    } finally {
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})

describe("the holding server and the responses it has answered", () => {
  it("keeps nothing of a finished response until its socket's next request (a keep-alive socket idles on)", async () => {
    V8.setFlagsFromString("--expose-gc")
    const gc = Vm.runInNewContext("gc") as () => void
    const server = createHoldingServer()
    let answered: WeakRef<object> | undefined
    server.on("request", (_req, res) => {
      answered = new WeakRef(res)
      res.end("ok")
    })
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
    const socket = Net.connect({ port: (server.address() as AddressInfo).port, host: "127.0.0.1" })
    try {
      await new Promise<void>((resolve) => {
        socket.on("connect", () => socket.write("GET / HTTP/1.1\r\nhost: x\r\n\r\n"))
        socket.once("data", () => resolve())
      })
      // the response's "close" comes right after its last write
      await new Promise((resolve) => setTimeout(resolve, 50))
      // (not `deref` before `gc` in one job: a WeakRef read keeps its target alive until the job ends)
      for (let i = 0; i < 3; i++) {
        gc()
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      expect(answered?.deref()).toBeUndefined()
      expect(socket.destroyed).toBe(false)
    } finally {
      socket.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  })
})
