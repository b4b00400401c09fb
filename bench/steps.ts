// Fiber steps of one warm request, by op and by code (a tool for issue 42, not part of `all`):
// `npx tsx bench/steps.ts [path]` (default /api/agent/me; STEPS_METHOD=POST for a bodiless POST; STEPS_ALL=1 lists every
// step in order). Runs the agent API
// in-process on an embedded database, signs up one agent, warms, then traces each run-loop step of one request with
// an op-supervising Supervisor. bench/steps-hello.ts does the same for the hello-world HttpApi.
import { NodeRuntime } from "@effect/platform-node"
import { Effect, FiberRef, Layer, RuntimeFlags, Supervisor } from "effect"
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"

const text = (f: unknown) =>
  typeof f === "function" ? (f.name || "anon") + " " + String(f).slice(0, 110).replace(/\s+/g, " ") : ""
const where = (e: any): string => {
  switch (e._op) {
    case "OnSuccess":
    case "OnFailure":
    case "OnSuccessAndFailure":
      return text(e.effect_instruction_i1) || text(e.effect_instruction_i2)
    case "Success":
      return String(e.effect_instruction_i0?.constructor?.name ?? typeof e.effect_instruction_i0)
    case "Commit":
      return text(e.commit)
    default:
      return text(e.effect_instruction_i0) || text(e.effect_instruction_i1)
  }
}

const refNames = new Map<unknown, string>(
  Object.entries(FiberRef).filter(([, v]) => typeof v === "object").map(([k, v]) => [v, k])
)

export class Tracer extends Supervisor.AbstractSupervisor<void> {
  on = false
  refs = 0
  context = 0
  contextKeys: Array<string> = []
  refKeys: Array<string> = []
  steps: Array<{ fiber: number; op: string; where: string }> = []
  get value() {
    return Effect.void
  }
  override onEffect(fiber: any, effect: any) {
    if (!this.on) return
    this.steps.push({ fiber: fiber.id().id, op: effect._op ?? effect._tag ?? "?", where: where(effect) })
    if (!fiber.currentContext.unsafeMap.has("@effect/platform/HttpServerRequest")) return
    this.refs = Math.max(this.refs, fiber._fiberRefs.locals.size)
    const size = fiber.currentContext.unsafeMap.size
    if (size > this.context) {
      this.context = size
      this.contextKeys = [...fiber.currentContext.unsafeMap.keys()]
    }
    if (this.refKeys.length === 0) {
      this.refKeys = [...fiber._fiberRefs.locals].map(([ref, stack]: [any, any]) =>
        `${refNames.get(ref) ?? "?"}:${stack.length}${
          refNames.has(ref) ? "" : "=" + String(ref.initial?.constructor?.name ?? ref.initial) + "/" +
            String(JSON.stringify(stack[0][1]) ?? stack[0][1]).slice(0, 80)
        }`
      )
    }
  }
}

export const report = (sup: Tracer, url: string, headers: Record<string, string>) =>
  Effect.gen(function*() {
    const get = () => fetch(url, { headers, method: process.env.STEPS_METHOD ?? "GET" }).then((r) => r.text())
    for (let i = 0; i < 200; i++) yield* Effect.promise(get)
    sup.on = true
    const body = yield* Effect.promise(get)
    sup.on = false
    // the request's fiber: the one with the most steps (a background loop may run meanwhile)
    const per = new Map<number, number>()
    for (const s of sup.steps) per.set(s.fiber, (per.get(s.fiber) ?? 0) + 1)
    const main = [...per].sort((a, b) => b[1] - a[1])[0]![0]
    const steps = sup.steps.filter((s) => s.fiber === main)
    if (per.size > 1) console.log(`(other fibers' steps left out: ${sup.steps.length - steps.length})`)
    const byOp = new Map<string, number>()
    const byWhere = new Map<string, number>()
    const fibers = new Set(steps.map((s) => s.fiber))
    for (const s of steps) {
      byOp.set(s.op, (byOp.get(s.op) ?? 0) + 1)
      const k = `${s.op} ${s.where}`
      byWhere.set(k, (byWhere.get(k) ?? 0) + 1)
    }
    console.log(body.slice(0, 200))
    console.log(`steps ${steps.length} in ${fibers.size} fibers; FiberRefs ${sup.refs}; context at most ${sup.context}`)
    console.log("context:", sup.contextKeys.join(", "))
    console.log("fiber refs:", sup.refKeys.join(", "))
    console.log([...byOp].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join("\n"))
    if (process.env.STEPS_ALL) { for (const s of steps) console.log(s.fiber, s.op, s.where) }
    else console.log([...byWhere].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${v} ${k}`).join("\n"))
  })

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = Fs.mkdtempSync(Path.join(Os.tmpdir(), "shoal-steps-"))
  Object.assign(process.env, {
    DATA_DIR: dir,
    PORT: "18931",
    WALLET_PORT: "18932",
    HOST: "127.0.0.1",
    RATE_LIMIT_PER_MINUTE: "1000000000",
    DNS_PORT: "0",
    DATABASE_URL: ""
  })
  const { Program } = await import("../src/main.js")
  const sup = new Tracer()
  const base = "http://127.0.0.1:18931"
  Effect.gen(function*() {
    yield* Effect.forkDaemon(Layer.launch(
      Program("agent").pipe(Layer.provide(Layer.merge(Supervisor.addSupervisor(sup), RuntimeFlags.enableOpSupervision)))
    ))
    for (let i = 0; i < 600; i++) {
      const up = yield* Effect.promise(() => fetch(`${base}/health`).then(() => true, () => false))
      if (up) break
      yield* Effect.sleep("100 millis")
    }
    const res = yield* Effect.promise(() =>
      fetch(`${base}/api/accounts`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ handle: `steps${Date.now().toString(36)}`, display_name: "Steps" })
      }).then((r) => r.json() as Promise<{ api_key: string }>)
    )
    yield* report(sup, `${base}${process.argv[2] ?? "/api/agent/me"}`, { authorization: `Bearer ${res.api_key}` })
    Fs.rmSync(dir, { recursive: true, force: true })
    process.exit(0)
  }).pipe(NodeRuntime.runMain)
}
