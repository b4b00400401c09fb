import { spawn } from "node:child_process"
import * as Net from "node:net"

/** What `install` has done: for tests and logs. */
export interface AcceptHandleStats {
  /** descriptors listening besides the server's own */
  readonly extra: number
  /** connections each of them accepted */
  readonly accepted: ReadonlyArray<number>
}

const helperSource = `
let left = Number(process.argv[1]) || 0
process.on("message", (_, handle) => {
  if (!handle) return
  const next = () => {
    if (left-- <= 0) {
      handle.close()
      process.disconnect()
      return
    }
    process.send("handle", handle, next)
  }
  next()
})
`

const helperTimeoutMs = 10_000

/**
 * More descriptors of one listening socket, so that a busy event loop accepts more than one connection per turn.
 *
 * Since libuv 1.45 (Node 20) a listening handle accepts one connection each time the poll reports it readable, that
 * is once per loop iteration (libuv#3696, "don't accept() connections in a loop": level-triggered polling reports it
 * again next turn). An idle loop turns in microseconds, so nothing is lost; a loaded one turns every 10–20 ms, and
 * then it accepts 50–100 connections a second whatever arrives: measured at the start of the overload bench, 1,038
 * connections made by the client in the first second, 178 accepted by then, the rest waiting in the kernel's accept
 * queue for up to 3 s while the loop itself never lagged more than 20 ms (bench/README.md, "overload"). Those waits
 * are in the client's latency and in no measure the server takes.
 *
 * Each descriptor is polled on its own, so `count` descriptors of the same socket accept up to `count` connections a
 * turn. Node 20 has no `reusePort` (22.12 has) and no way to duplicate a descriptor, but it passes handles between
 * processes as its cluster module does, and the receiving side gets its own descriptor (SCM_RIGHTS): so a helper
 * process is given the listening handle and sends it back `count - 1` times, then exits. It never listens on it (a
 * raw handle is passed, which the receiver does not start), so it never takes a connection. Each copy's connections
 * are handed to `server` as its own ("connection" is the documented way in): the HTTP server, its timeouts and the
 * per-address and total caps (src/Http/HoldingServer.ts) see them as any other. `server.close()` closes the copies
 * too, and calls back once every connection of every copy has ended.
 *
 * Best effort: if the helper cannot be started, or does not answer within a few seconds, the server goes on with
 * its one descriptor, and `onFailure` says why.
 */
export const install = <S extends Net.Server>(
  server: S,
  options: {
    readonly count: number
    /** the server's listen backlog: a copy's listen sets the socket's again, so it is given the same */
    readonly backlog?: number | undefined
    readonly onFailure: (reason: string) => void
  }
): { readonly server: S; readonly stats: () => AcceptHandleStats } => {
  const { backlog, count, onFailure } = options
  const copies: Array<{ readonly server: Net.Server; accepted: number }> = []
  const stats = () => ({ extra: copies.length, accepted: copies.map((c) => c.accepted) })
  if (count <= 1) return { server, stats }
  let closed = false

  const adopt = (handle: unknown) => {
    // Node sets a socket's options as the server that accepted it has them: Nagle off, as node:http's own server
    // (without it a WebSocket's `ready`, written right after the 101, waited for the client's delayed ACK)
    const copy = { server: new Net.Server({ noDelay: true }), accepted: 0 }
    copy.server.on("connection", (socket: Net.Socket) => {
      copy.accepted++
      server.emit("connection", socket)
    })
    copy.server.on("error", (error) => onFailure(`a copy of the listening socket failed: ${error.message}`))
    // a raw TCP handle, already bound and listening: the copy polls its own descriptor of it
    copy.server.listen(handle as Net.ListenOptions, backlog)
    copy.server.unref()
    copies.push(copy)
  }

  const borrow = () => {
    const handle = (server as unknown as { _handle?: object | null })._handle
    if (closed || handle == null) return
    let helper: ReturnType<typeof spawn>
    try {
      helper = spawn(process.execPath, ["-e", helperSource, String(count - 1)], {
        stdio: ["ignore", "ignore", "ignore", "ipc"],
        env: {}
      })
    } catch (error) {
      onFailure(`no helper process: ${(error as Error).message}`)
      return
    }
    const done = (reason?: string) => {
      clearTimeout(timer)
      if (helper.exitCode === null && helper.signalCode === null) helper.kill()
      if (reason !== undefined) onFailure(reason)
    }
    const timer = setTimeout(
      () => done(`the helper gave ${copies.length} of ${count - 1} handles in time`),
      helperTimeoutMs
    )
    timer.unref()
    helper.on("error", (error) => done(`no helper process: ${error.message}`))
    helper.on("message", (_message, copy) => {
      if (copy === undefined) return
      if (closed) return void (copy as { close?: () => void }).close?.()
      adopt(copy)
      if (copies.length >= count - 1) done()
    })
    helper.on("exit", (code, signal) => {
      if (copies.length < count - 1 && !closed) {
        done(`the helper ended (${signal ?? code}) after ${copies.length} of ${count - 1} handles`)
      } else clearTimeout(timer)
    })
    helper.unref()
    helper.channel?.unref()
    // a raw handle: the helper receives it without listening on it
    helper.send("handle", handle as Net.Server, (error) => {
      if (error) done(`the listening handle could not be passed: ${error.message}`)
    })
  }

  const target = server as Net.Server
  const close = target.close
  target.close = function(this: Net.Server, callback?: (error?: Error) => void) {
    closed = true
    let pending = copies.length + 1
    let first: Error | undefined
    const one = (error?: Error) => {
      if (error !== undefined && (error as { code?: string }).code !== "ERR_SERVER_NOT_RUNNING") first ??= error
      if (--pending === 0) callback?.(first)
    }
    for (const copy of copies.splice(0)) copy.server.close(one)
    return close.call(this, one)
  }

  if (server.listening) borrow()
  else server.once("listening", borrow)
  return { server, stats }
}
