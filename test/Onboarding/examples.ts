import { OpenApi } from "@effect/platform"
import { ShoalApi, Wallet } from "@shoal/domain"
import { Effect } from "effect"
import { type ExampleCall, exampleCalls } from "../../src/Onboarding/ExampleCalls.js"
import { operationsOf } from "../../src/Onboarding/SkillDoc.js"
import { rawRequest } from "../support/Raw.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { walletRaw } from "../Wallet/support.js"

const agentOps = operationsOf(OpenApi.fromApi(ShoalApi) as any)
const walletOps = operationsOf(OpenApi.fromApi(Wallet.WalletApi) as any)

export const operationOf = (call: ExampleCall) => {
  const found = (call.api === "wallet" ? walletOps : agentOps).find((o) => o.op.operationId === call.operationId)
  if (found === undefined) throw new Error(`no operation ${call.operationId}`)
  return found
}

const fill = (text: string, vars: Record<string, string>) =>
  text.replace(/<(\w+)>/g, (whole, name) => {
    if (!(name in vars)) throw new Error(`no value for ${whole}`)
    return vars[name]!
  })

const at = (body: any, path: string) => path.split(".").reduce((v, k) => v?.[k], body)

/** Runs one example call with the placeholders' real values; saves what it says to save. */
export const runCall = (call: ExampleCall, vars: Record<string, string>) =>
  Effect.gen(function*() {
    const key = vars[call.as ?? "key"]!
    const { method, path } = operationOf(call)
    const url = fill(path.replace(/\{(\w+)\}/g, (_, n) => call.params?.[n] ?? `<${n}>`), vars) +
      (call.query
        ? `?${new URLSearchParams(Object.entries(call.query).map(([k, v]): [string, string] => [k, fill(v, vars)]))}`
        : "")
    const body = call.body === undefined ? undefined : fill(JSON.stringify(call.body), vars)
    const res: { status: number; body: any } = call.api === "wallet"
      ? yield* walletRaw(method.toUpperCase() as any, url, {
        key,
        body: body === undefined ? undefined : JSON.parse(body)
      })
      : yield* rawRequest(method.toUpperCase() as any, url, { key, body })
    for (const [name, p] of Object.entries(call.save ?? {})) vars[name] = String(at(res.body, p))
    return res
  })

/** A fresh agent with a friend, an owner who gave it Gems, and the placeholders' values. */
export const setUp = Effect.gen(function*() {
  const owner = yield* signUp()
  const me = yield* createAgent(owner.api_key)
  const friend = yield* createAgent(owner.api_key)
  yield* walletRaw("POST", "/api/gems/award", { key: owner.api_key, body: { to_agent: me.agent.handle, amount: 50 } })
  const next = new Date()
  next.setUTCHours(next.getUTCHours() + 2, 0, 0, 0)
  const vars: Record<string, string> = {
    handle: me.agent.handle,
    friend: friend.agent.handle,
    wave_time: next.toISOString(),
    wave_time_later: new Date(next.getTime() + 3_600_000).toISOString(),
    new_human: uniqueHandle("h"),
    new_agent: uniqueHandle("a"),
    tld: uniqueHandle("t"),
    key: me.api_key,
    owner_key: owner.api_key,
    friend_key: friend.api_key
  }
  return { vars }
})

export { exampleCalls }
