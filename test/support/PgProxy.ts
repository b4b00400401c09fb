import { Effect } from "effect"
import * as Net from "node:net"

/**
 * A TCP proxy in front of a PostgreSQL server, to play its failures without touching the real server (others use
 * it): `stop()` closes the port and cuts every connection (the server is down: connection refused), `freeze()`
 * keeps accepting and holding connections but forwards nothing either way (a hung server or a black-holed
 * network), `resume()` forwards new connections again on the same port.
 */
export interface PgProxy {
  readonly port: number
  readonly stop: () => Promise<void>
  readonly freeze: () => void
  readonly resume: () => Promise<void>
}

export const makeProxy = (target: { readonly host: string; readonly port: number }) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<PgProxy> => {
      let mode: "pass" | "frozen" | "stopped" = "pass"
      const sockets = new Set<Net.Socket>()
      const track = (s: Net.Socket) => {
        sockets.add(s)
        s.on("close", () => sockets.delete(s)).on("error", () => {})
      }
      const pairs = new Set<{ client: Net.Socket; upstream: Net.Socket }>()
      const onConnection = (client: Net.Socket) => {
        track(client)
        // frozen: accept and hold, never answer
        if (mode !== "pass") return
        const upstream = Net.connect(target.port, target.host)
        track(upstream)
        const pair = { client, upstream }
        pairs.add(pair)
        client.on("close", () => {
          pairs.delete(pair)
          upstream.destroy()
        })
        upstream.on("close", () => client.destroy())
        client.pipe(upstream)
        upstream.pipe(client)
      }
      let server = Net.createServer(onConnection)
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r))
      const port = (server.address() as Net.AddressInfo).port
      return {
        port,
        stop: () => {
          mode = "stopped"
          for (const s of sockets) s.destroy()
          return new Promise<void>((r) => server.close(() => r()))
        },
        freeze: () => {
          mode = "frozen"
          // connections already open go silent too: nothing more is forwarded either way
          for (const { client, upstream } of pairs) {
            client.unpipe(upstream)
            upstream.unpipe(client)
            client.pause()
            upstream.pause()
          }
        },
        resume: async () => {
          // what was frozen stays silent for good: the service must give up on those connections by itself
          if (mode === "stopped") {
            server = Net.createServer(onConnection)
            await new Promise<void>((r) => server.listen(port, "127.0.0.1", r))
          }
          mode = "pass"
        }
      }
    }),
    (proxy) => Effect.promise(() => proxy.stop())
  )

/** Whether a TCP connection to `host:port` opens within a second. */
export const reachable = (host: string, port: number) =>
  new Promise<boolean>((resolve) => {
    const s = Net.connect(port, host)
    const done = (ok: boolean) => {
      s.destroy()
      resolve(ok)
    }
    s.setTimeout(1000, () => done(false))
    s.once("connect", () => done(true)).once("error", () => done(false))
  })
