// The hostile bench's attackers, in their own process (so they do not share an event loop with the measured
// client): `tsx bench/hostile-attacks.ts <attack> <http port> <dns port> <seconds> [block]`; prints a JSON summary.
// Every attacker connects from 127.0.<block>.2–5 (loopback; block 0 by default), the measured client from 127.0.0.1.
// The bench gives each attack a block of its own: the server's penalty box (src/Edge/PenaltyBox.ts) keys by address,
// so an attack from the previous one's addresses would start boxed and measure the box, not the attack.
// `dns-flood-sink` is dns-flood's baseline: the same flood, at a UDP socket of this process that never reads, so the
// kernel delivers and drops every datagram with no Shoal in it; what it costs the normal client is the machine's.
import * as DnsPacket from "dns-packet"
import * as Dgram from "node:dgram"
import * as Net from "node:net"
import { Worker } from "node:worker_threads"
import WebSocket from "ws"

const [attack = "", portText = "0", dnsText = "0", secondsText = "5", blockText = "0"] = process.argv.slice(2)
const port = Number(portText)
const until = Date.now() + Number(secondsText) * 1000
const sources = [2, 3, 4, 5].map((n) => `127.0.${Number(blockText)}.${n}`)
const stats = {
  opened: 0,
  closedByServer: 0,
  refused: 0,
  statuses: {} as Record<string, number>,
  codes: {} as Record<string, number>,
  sent: 0,
  answered: 0
}
const count = (into: Record<string, number>, key: string | number) => void (into[key] = (into[key] ?? 0) + 1)
const live = () => Date.now() < until

/** `slots` connections held open at once, each reopened when the server closes it, writing `drip` slowly. */
const slowloris = (slots: number, head: string, drip: (n: number) => string, everyMs: number) => {
  const open = (slot: number) => {
    if (!live()) return
    const socket = Net.connect({ port, host: "127.0.0.1", localAddress: sources[slot % sources.length]! })
    let n = 0
    let data = ""
    let timer: NodeJS.Timeout | undefined
    socket.on("connect", () => {
      stats.opened++
      socket.write(head)
      timer = setInterval(() => socket.writable && socket.write(drip(n++)), everyMs)
    })
    socket.on("data", (d) => void (data += d.toString("latin1")))
    socket.on("error", () => void stats.refused++)
    socket.on("close", () => {
      clearInterval(timer)
      if (!live()) return
      stats.closedByServer++
      count(stats.statuses, Number(data.split(" ")[1] ?? 0))
      setTimeout(() => open(slot), 50)
    })
  }
  for (let i = 0; i < slots; i++) open(i)
}

/**
 * `n` event sockets that never authenticate, each reopened 50 ms after it closes, on raw TCP: the upgrade request
 * written as one string, its answer's status read, a close frame from the server answered with the same code (as
 * `ws` does) and the socket ended. The server sees what the `ws` client sent it, for about half the attacker's CPU
 * (1.2–1.9 s against 2.2–3.8 s in a 7 s attack; bench/README.md, hostile): CPU that a remote attacker would not take
 * from the server's machine. Stats as `sockets`: opened (101), refused (another status, counted by status, or an
 * error before one), codes.
 */
const unauthenticated = (n: number) => {
  const upgrade =
    `GET /api/agent/ws HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nupgrade: websocket\r\nconnection: Upgrade\r\n` +
    `sec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\nsec-websocket-version: 13\r\n\r\n`
  const open = (slot: number) => {
    if (!live()) return
    const socket = Net.connect({ port, host: "127.0.0.1", localAddress: sources[slot % sources.length]! })
    let head: Buffer | undefined = Buffer.alloc(0)
    let frames = Buffer.alloc(0)
    let code: number | undefined
    socket.setNoDelay(true)
    socket.on("connect", () => void socket.write(upgrade))
    socket.on("data", (d: Buffer) => {
      if (head !== undefined) {
        head = Buffer.concat([head, d])
        const end = head.indexOf("\r\n\r\n")
        if (end < 0) return
        const status = Number(head.toString("latin1", 0, end).split(" ")[1] ?? 0)
        d = head.subarray(end + 4)
        head = undefined
        if (status !== 101) {
          count(stats.statuses, status)
          stats.refused++
          return void socket.destroy()
        }
        stats.opened++
      }
      frames = Buffer.concat([frames, d])
      // the server's frames are unmasked and small here: the close frame is all it sends an unauthenticated socket
      while (frames.length >= 2) {
        const length = frames[1]! & 0x7f
        if (length > 125 || frames.length < 2 + length) break
        if ((frames[0]! & 0x0f) === 0x8 && code === undefined) {
          code = length >= 2 ? frames.readUInt16BE(2) : 1005
          // a masked close frame (zero mask) with the same code, then the end of the socket
          socket.end(Buffer.from([0x88, 0x82, 0, 0, 0, 0, code >> 8, code & 0xff]))
        }
        frames = frames.subarray(2 + length)
      }
    })
    socket.on("error", () => {
      if (head !== undefined) stats.refused++
    })
    socket.on("close", () => {
      if (head === undefined && code === undefined) code = 1006
      if (code !== undefined) count(stats.codes, code)
      if (live()) setTimeout(() => open(slot), 50)
    })
  }
  for (let i = 0; i < n; i++) setTimeout(() => open(i), i % 500)
}

/** `n` event sockets that never authenticate (reopened as they are closed), or that send one oversized frame. */
const sockets = (n: number, frame: Buffer | undefined) => {
  const open = (slot: number) => {
    if (!live()) return
    const ws = new WebSocket(`ws://127.0.0.1:${port}/api/agent/ws`, {
      localAddress: sources[slot % sources.length]!,
      perMessageDeflate: false,
      // a zero mask (a client picks its own): ws then sends the frame as it is, where a random one made it copy and
      // XOR the whole megabyte in JavaScript on every send, CPU that the attacker took from the 2 cores it shares
      // with the server and the measured client while doing nothing to the server (which reads the frame's header,
      // closes 1009 and reads no more)
      generateMask: (mask: Buffer) => void mask.fill(0)
    })
    ws.on("open", () => {
      stats.opened++
      if (frame !== undefined) ws.send(frame)
    })
    ws.on("error", () => void stats.refused++)
    ws.on("close", (code) => {
      count(stats.codes, code)
      if (live()) setTimeout(() => open(slot), frame === undefined ? 50 : 10)
    })
  }
  for (let i = 0; i < n; i++) setTimeout(() => open(i), i % 500)
}

/** As many TXT queries from one source as the socket takes, for the whole phase. */
const dnsFlood = (dnsPort: number) => {
  const socket = Dgram.createSocket("udp4")
  socket.bind(0, sources[0]!)
  socket.on("message", () => void stats.answered++)
  // while Shoal's flood brake has the port closed, the kernel answers ICMP port unreachable (not rate limited on
  // loopback), which this connected socket reads as ECONNREFUSED: counted, and the flood goes on, as a flooder
  // ignoring them would (unhandled, the error ended this process at the first pause)
  socket.on("error", () => void stats.refused++)
  const packet = DnsPacket.encode({
    type: "query",
    id: 1,
    flags: DnsPacket.RECURSION_DESIRED,
    questions: [{ type: "TXT", name: "flood.shoal.local" }]
  })
  const burst = () => {
    if (!live()) return
    for (let i = 0; i < 200; i++) {
      // connected: a send with an address looked it up (a tick and a callback per datagram), attacker CPU that
      // sent nothing more to the server
      socket.send(packet)
      stats.sent++
    }
    setImmediate(burst)
  }
  socket.on("listening", () => socket.connect(dnsPort, "127.0.0.1", burst))
  return socket
}

/**
 * A socket bound on loopback that never reads: its receive buffer fills and the kernel drops the rest. Node has no
 * public way to stop reading a socket, so it is bound in a worker thread that then blocks for the phase: its event
 * loop never runs to read it.
 */
const sink = (ms: number) =>
  new Promise<{ readonly port: number; readonly worker: Worker }>((resolve, reject) => {
    const worker = new Worker(
      `const { parentPort } = require("node:worker_threads")
      const socket = require("node:dgram").createSocket("udp4")
      socket.bind(0, "127.0.0.1", () => {
        parentPort.postMessage(socket.address().port)
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms})
      })`,
      { eval: true }
    )
    worker.once("message", (port: number) => resolve({ port, worker }))
    worker.once("error", reject)
  })

let dns: Dgram.Socket | undefined
let sunk: { readonly port: number; readonly worker: Worker } | undefined
switch (attack) {
  case "slowloris-headers":
    slowloris(1000, "GET /api/agent/me HTTP/1.1\r\nhost: x\r\n", (n) => `x-drip-${n}: 1\r\n`, 1000)
    break
  case "slowloris-bodies":
    slowloris(
      500,
      "PATCH /api/agent/profile HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{",
      () => " ",
      1000
    )
    break
  case "ws-unauthenticated":
    unauthenticated(3000)
    break
  case "ws-unauthenticated-ws":
    // the same attack through the `ws` client, as the bench ran it until session 15
    sockets(3000, undefined)
    break
  case "ws-oversized":
    sockets(50, Buffer.alloc(1024 * 1024, 0x20))
    break
  case "dns-flood":
    dns = dnsFlood(Number(dnsText))
    break
  case "dns-flood-sink":
    sunk = await sink(until - Date.now() + 1_000)
    dns = dnsFlood(sunk.port)
    break
  default:
    console.error(`unknown attack ${attack}`)
    process.exit(2)
}

setTimeout(() => {
  dns?.close()
  void sunk?.worker.terminate()
  // the attacker's own CPU: it shares the machine's 2 cores with the server and the measured client
  const cpu = process.cpuUsage()
  process.stdout.write(JSON.stringify({ ...stats, attackerCpuMs: Math.round((cpu.user + cpu.system) / 1000) }) + "\n")
  process.exit(0)
}, until - Date.now() + 200)
