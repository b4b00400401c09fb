import { HttpServer } from "@effect/platform"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs"
import * as Http from "node:http"
import { createRequire } from "node:module"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, it as plainIt } from "vitest"
import { waitFor } from "../support/Realtime.js"
import { describeApp } from "../support/TestApp.js"
import { agentWithRelay, sendTheThree } from "./support.js"

/**
 * The OpenClaw channel plugin's own compiled poller and client, unchanged but for their base URLs, against Shoal.
 * They come from a read-only mirror of the plugin's repository; on a checkout without it (CI) this file is
 * skipped with a notice, and test/Relay/Relay.test.ts still covers the same routes over plain HTTP.
 */
const MIRROR = "/work/.mirror/shadstoneofficial+openclaw-powerlobster-channel/repo"

const channelFile = (path: string): string | undefined => {
  if (!existsSync(MIRROR)) return undefined
  try {
    return execFileSync("git", ["-C", MIRROR, "show", `HEAD:${path}`], { encoding: "utf8" })
  } catch {
    return undefined
  }
}

const poller = channelFile("dist/src/poller.js")
const client = channelFile("dist/src/client.js")
const webhook = channelFile("dist/src/webhook.js")

/** The two base URL constants pointed at `base`; nothing else in the files changes. */
const pointAt = (source: string, base: string) =>
  source.replaceAll("https://relay.powerlobster.com/api/v1", `${base}/api/v1`)
    .replaceAll("https://powerlobster.com", base)

/** The plugin's files in a folder of their own, with a `node-fetch` of ours that is Node's own fetch. */
const install = (base: string) => {
  const dir = mkdtempSync(join(tmpdir(), "openclaw-"))
  writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "commonjs" }))
  writeFileSync(join(dir, "poller.js"), pointAt(poller!, base))
  writeFileSync(join(dir, "client.js"), pointAt(client!, base))
  writeFileSync(join(dir, "webhook.js"), webhook!)
  mkdirSync(join(dir, "node_modules", "node-fetch"), { recursive: true })
  writeFileSync(
    join(dir, "node_modules", "node-fetch", "index.js"),
    "module.exports = (...args) => fetch(...args)\nmodule.exports.default = module.exports\n"
  )
  const require = createRequire(join(dir, "index.js"))
  return {
    dir,
    PowerLobsterPoller: require("./poller.js").PowerLobsterPoller,
    PowerLobsterClient: require("./client.js").PowerLobsterClient,
    PowerLobsterWebhookHandler: require("./webhook.js").PowerLobsterWebhookHandler
  }
}

/** What the plugin logs as a failure (it reports errors by logging them, never by throwing). */
const captureComplaints = () => {
  const complaints: Array<string> = []
  const original = { warn: console.warn, error: console.error, log: console.log }
  console.warn = (...args: Array<unknown>) => complaints.push(args.map(String).join(" "))
  console.error = (...args: Array<unknown>) => complaints.push(args.map(String).join(" "))
  console.log = () => {}
  return { complaints, restore: () => Object.assign(console, original) }
}

/**
 * The plugin installed against this test's server, its complaints captured; both undone when the scope closes. With
 * an agent that has relay credentials.
 */
const installed = Effect.gen(function*() {
  const server = yield* HttpServer.HttpServer
  const base = `http://127.0.0.1:${(server.address as HttpServer.TcpAddress).port}`
  const relay = yield* agentWithRelay
  const [plugin, log] = yield* Effect.acquireRelease(
    Effect.sync(() => [install(base), captureComplaints()] as const),
    ([plugin, log]) =>
      Effect.sync(() => {
        log.restore()
        rmSync(plugin.dir, { recursive: true, force: true })
      })
  )
  return { ...relay, plugin, log }
})

if (poller === undefined || client === undefined || webhook === undefined) {
  console.warn(`test/Relay/OpenClaw.test.ts skipped: no mirror of the OpenClaw channel plugin at ${MIRROR}`)
  describe.skip("the real OpenClaw channel (its mirror is absent here)", () => {
    plainIt("polls, acknowledges and configures the relay unchanged", () => {})
  })
} else {
  // the push receiver listens on loopback, which the URL guard refuses unless WEBHOOK_ALLOW_PRIVATE
  describeApp({ WEBHOOK_ALLOW_PRIVATE: "true" })("the real OpenClaw channel", (it) => {
    it.scoped("its poller receives a DM, a task assignment and a mention; acknowledged, they do not come again", () =>
      Effect.gen(function*() {
        const { agent, human, log, plugin, relayId, relayKey } = yield* installed
        const sent = yield* sendTheThree(human, agent.agent.handle)
        const received: Array<{ payload: any; id: string }> = []
        const poll = (p: any) =>
          Effect.promise(async () => {
            // start() would poll every 30 s and send heartbeats: one poll, as its timer would run it
            p.isPolling = true
            await p.poll()
            p.stop()
          })
        const result = yield* Effect.gen(function*() {
          const p = new plugin.PowerLobsterPoller({ relayId, relayApiKey: relayKey, apiKey: agent.api_key })
          p.on("message", (m: { payload: any; id: string }) => received.push(m))
          yield* poll(p)
          const first = [...received]
          // the channel acknowledges each event once handled
          for (const m of first) yield* Effect.promise(() => p.ack(m.id))
          yield* poll(p)
          const c = new plugin.PowerLobsterClient({ apiKey: agent.api_key, relayId, relayApiKey: relayKey })
          const config = yield* Effect.promise(() => c.getRelayConfig())
          const reported = yield* Effect.promise(() => c.reportEventResult(first[0]!.id, { status: "success" }))
          const configured = yield* Effect.promise(() =>
            c.configureRelay({ mode: "push", url: "https://93.184.216.34/openclaw", secret: "s3cret" })
          )
          const back = yield* Effect.promise(() => c.configureRelay({ mode: "poll" }))
          return { first, config, reported, configured, back }
        }).pipe(Effect.ensuring(Effect.sync(() => log.restore())))

        expect(log.complaints).toEqual([])
        const byType = Object.fromEntries(result.first.map((m) => [m.payload.type, m]))
        // what channel.js handleEvent reads of each
        expect(byType["dm.received"].payload.data).toMatchObject({
          sender_handle: human.user.handle,
          content: "psst, the build is red"
        })
        expect(byType["task.assigned"].payload.data).toMatchObject({
          task: { id: sent.task.id, title: "Fix the build", description: "the CI job fails on npm ci" },
          project: { id: sent.project.id, title: "Relay project" }
        })
        expect(byType["mention"].payload.data).toMatchObject({
          author: human.user.handle,
          content: `thanks @${agent.agent.handle} for the help`
        })
        for (const m of result.first) {
          expect(m.id).toBe(m.payload.id)
          expect(m.payload._meta.delivery_method).toBe("poll")
        }
        // after ?ack=true and the acks, the second poll brought none of them again. It may bring an event emitted
        // after the first poll: `presence.changed` comes from the presence actor, not from the requests above, and
        // on a loaded machine it once committed between the two polls (CI, PostgreSQL)
        const firstIds = new Set(result.first.map((m) => m.id))
        const later = received.slice(result.first.length)
        expect(later.filter((m) => firstIds.has(m.id) || m.payload.type !== "presence.changed")).toEqual([])

        expect(result.config).toMatchObject({ relay_id: relayId, delivery_mode: "poll", config_version: 1 })
        expect(result.reported).toEqual({ status: "success" })
        expect(result.configured).toMatchObject({
          delivery_mode: "push",
          webhook_url: "https://93.184.216.34/openclaw",
          config_version: 2
        })
        expect(result.back).toMatchObject({ delivery_mode: "poll", config_version: 3 })
      }))
    it.scoped("in push mode its webhook handler receives the three, signature verified", () =>
      Effect.gen(function*() {
        const { agent, human, log, plugin, relayId, relayKey } = yield* installed
        const events: Array<any> = []
        const rejected: Array<string> = []
        // the channel's handler as OpenClaw mounts it: it reads the request, verifies, parses and hands on the event
        const handler = new plugin.PowerLobsterWebhookHandler(async (e: any) => {
          events.push(e)
        }, "hook-secret")
        const receiver = yield* Effect.acquireRelease(
          Effect.promise(async () => {
            const s = Http.createServer((req, res) => {
              handler.handle(req).then(
                () => res.writeHead(200).end(),
                (e: any) => {
                  rejected.push(String(e.message))
                  res.writeHead(e.statusCode ?? 500).end()
                }
              )
            })
            await new Promise<void>((r) => s.listen(0, "127.0.0.1", r))
            return s
          }),
          (s) => Effect.promise(() => new Promise<void>((done) => s.close(() => done())))
        )
        const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/powerlobster/webhook`
        const c = new plugin.PowerLobsterClient({ apiKey: agent.api_key, relayId, relayApiKey: relayKey })
        const configured = yield* Effect.promise(() => c.configureRelay({ mode: "push", url, secret: "hook-secret" }))
        expect(configured).toMatchObject({ delivery_mode: "push", webhook_url: url })
        const sent = yield* sendTheThree(human, agent.agent.handle)
        const byType = yield* waitFor("the three pushed", () => {
          const m = Object.fromEntries(events.map((e) => [e.type, e]))
          return m["dm.received"] && m["task.assigned"] && m["mention"] ? m : undefined
        })
        expect(rejected).toEqual([])
        expect(log.complaints).toEqual([])
        expect(byType["dm.received"].data).toMatchObject({ sender_handle: human.user.handle })
        expect(byType["task.assigned"].data.task).toMatchObject({ id: sent.task.id, title: "Fix the build" })
        expect(byType["mention"].data.author).toBe(human.user.handle)
        expect(byType["mention"]._meta.delivery_method).toBe("push")
      }))

    it.scoped("its client's actions work unchanged: heartbeat, DM, post, task comment and status, Wave schedule (as me, its tools' default) and completion", () =>
      Effect.gen(function*() {
        const { agent, human, log, plugin, relayId, relayKey } = yield* installed
        const sent = yield* sendTheThree(human, agent.agent.handle)
        const c = new plugin.PowerLobsterClient({ apiKey: agent.api_key, relayId, relayApiKey: relayKey })
        const call = (name: string, f: () => Promise<any>) =>
          Effect.promise((): Promise<{ name: string; body?: any; error?: string }> =>
            f().then((body) => ({ name, body }), (e: Error) => ({ name, error: e.message }))
          )
        const thisHour = new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000).toISOString()
        const results = yield* Effect.gen(function*() {
          const out: Array<{ name: string; body?: any; error?: string }> = []
          out.push(yield* call("sendHeartbeat", () => c.sendHeartbeat()))
          out.push(yield* call("sendDM", () => c.sendDM(human.user.handle, "on it")))
          out.push(yield* call("postUpdate", () => c.postUpdate("shipping the fix today")))
          out.push(yield* call("commentTask", () => c.commentTask(sent.task.id, "found it: a stale lockfile")))
          out.push(yield* call("updateTaskStatus", () => c.updateTaskStatus(sent.task.id, "in_progress")))
          const wave = yield* call("createWave", () => c.createWave("me", thisHour, sent.task.id))
          out.push(wave)
          out.push(yield* call("completeWave", () => c.completeWave(wave.body?.wave_id)))
          return out
        }).pipe(Effect.ensuring(Effect.sync(() => log.restore())))
        expect(log.complaints).toEqual([])
        for (const r of results) expect(r.error, r.name).toBeUndefined()
        const body = Object.fromEntries(results.map((r) => [r.name, r.body]))
        expect(body.sendHeartbeat).toMatchObject({ status: "success", connected: true })
        expect(body.sendDM.message).toMatchObject({ recipient_handle: human.user.handle, content: "on it" })
        expect(body.postUpdate.post).toMatchObject({
          author_handle: agent.agent.handle,
          content: "shipping the fix today"
        })
        expect(body.commentTask).toMatchObject({ status: "success", comment_id: expect.any(String) })
        expect(body.updateTaskStatus.task).toMatchObject({ id: sent.task.id, status: "in_progress" })
        expect(body.updateTaskStatus.task.assigned_to.handle).toBe(agent.agent.handle)
        expect(body.completeWave).toMatchObject({ wave_id: body.createWave.wave_id, task_id: sent.task.id })
      }))
  })
}
