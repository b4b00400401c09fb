import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import { Ids } from "@shoal/domain"
import { Context, Effect, Layer, TestClock, TestContext } from "effect"
import { randomUUID } from "node:crypto"
import { agentApi, Services, Singletons } from "../../src/main.js"
import { BalanceChanges } from "../../src/Wallet/BalanceChanges.js"
import { Bounties, STRANDED_AFTER_MS } from "../../src/Wallet/Bounties.js"
import { sweepExpired } from "../../src/Wallet/BountyExpiry.js"
import { newProject } from "../Projects/support.js"
import { makeProxy, type PgProxy } from "../support/PgProxy.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { configLayer, createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { TestDatabase, usingServer } from "../support/TestDatabase.js"
import { TestServer } from "../support/TestServer.js"
import { freePort, WalletNode, withInvariant } from "./support.js"

/** A TCP proxy between the agent API and the wallet's `/rpc`: `stop()` is the wallet process down, `resume()` back. */
class WalletLink extends Context.Tag("test/WalletLink")<WalletLink, PgProxy>() {}

/** Split mode (`--only agent` beside `--only wallet`) in one test process: the agent API reaches the wallet over RPC. */
const SplitApp = Layer.unwrapScoped(Effect.gen(function*() {
  const port = yield* Effect.promise(freePort)
  const link = yield* makeProxy({ host: "127.0.0.1", port })
  return Layer.mergeAll(agentApi(Layer.empty), WalletNode(port), Layer.succeed(WalletLink, link)).pipe(
    Layer.provideMerge(Services),
    Layer.provideMerge(Singletons),
    Layer.provideMerge(TestServer),
    Layer.provideMerge(TestDatabase),
    Layer.provide(configLayer({
      WALLET_RPC_URL: `http://127.0.0.1:${link.port}/rpc`,
      WALLET_RPC_SECRET: "test-rpc-secret"
    }))
  )
}))

const down = Effect.flatMap(WalletLink, (l) => Effect.promise(() => l.stop()))
const up = Effect.flatMap(WalletLink, (l) => Effect.promise(() => l.resume()))

const escrow = (key: string) =>
  Effect.map(rawRequest("GET", "/api/agent/me", { key }), (r) => r.body.user.gems_escrow as number)

const ledger = (taskId: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ source: string }>`SELECT source FROM gem_transactions WHERE reference_id = ${taskId} ORDER BY seq`.pipe(
        Effect.map((rows) => rows.map((r) => r.source)),
        Effect.orDie
      )
  )

/** The wallet down is the agent API's 503 `unavailable` with Retry-After, as for the database. */
const expectWalletDown = (res: Parameters<typeof expectError>[0]) => {
  const error = expectError(res, 503, "unavailable")
  expect(res.headers["retry-after"]).toBe("5")
  expect(error.details).toEqual({ wallet: "down", reason: "unreachable" })
}

// Over RPC with an Idempotency-Key the agent API holds a transaction open while it calls the wallet: the embedded
// database (one session for both parts) would wait on itself, so the keyed requests run on a server only
const keyed = usingServer()

layer(SplitApp, { excludeTestServices: true })("the wallet down in split mode", (it) => {
  it.effect("creating a bounty task: 503 + Retry-After and no task; with the wallet back, the retry is funded", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const project = yield* newProject(human.client, { visibility: "public" })
      const create = rawRequest("POST", `/api/agent/projects/${project.id}/tasks`, {
        key: human.api_key,
        body: JSON.stringify({ title: "Funded or not at all", gem_bounty: 120 }),
        headers: keyed ? { "idempotency-key": `create-${project.id}` } : {}
      })
      const list = Effect.map(
        rawRequest("GET", `/api/agent/projects/${project.id}/tasks`, { key: human.api_key }),
        (r) => r.body.tasks as Array<{ id: string; gem_bounty: number }>
      )

      yield* down
      expectWalletDown(yield* create)
      expect(yield* list).toEqual([])
      expect(yield* escrow(human.api_key)).toBe(0)

      yield* up
      const created = yield* create
      expect(created.status).toBe(201)
      expect(created.body.task.gem_bounty).toBe(120)
      expect((yield* list).map((t) => [t.id, t.gem_bounty])).toEqual([[created.body.task.id, 120]])
      expect(yield* escrow(human.api_key)).toBe(120)
      expect(yield* ledger(created.body.task.id)).toEqual(["bounty_funded"])
    })))

  it.effect("cancelling with the wallet down: 503; the retry with the wallet back burns the escrow, once", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const project = yield* newProject(human.client, { visibility: "public" })
      const { task } = yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "To be cancelled", gem_bounty: 70 },
        headers: {}
      })
      const cancel = rawRequest("POST", `/api/agent/tasks/${task.id}/update`, {
        key: human.api_key,
        body: JSON.stringify({ status: "cancelled" })
      })

      yield* down
      expectWalletDown(yield* cancel)
      // the Gems are still in escrow and the task still shows them: the burn is owed
      expect(yield* escrow(human.api_key)).toBe(70)
      expect(yield* ledger(task.id)).toEqual(["bounty_funded"])

      yield* up
      const retried = yield* cancel
      expect(retried.status).toBe(200)
      expect(retried.body.task).toMatchObject({ status: "cancelled", gem_bounty: 0 })
      expect(yield* escrow(human.api_key)).toBe(0)
      expect(yield* ledger(task.id)).toEqual(["bounty_funded", "bounty_cancelled"])
      // once burned, a further cancel burns nothing more
      expect((yield* cancel).status).toBe(200)
      expect(yield* ledger(task.id)).toEqual(["bounty_funded", "bounty_cancelled"])
    })))

  it.effect("approving with the wallet down: 503 and still awaiting approval; the retry pays", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
      const project = yield* newProject(human.client, { visibility: "public" })
      const { task } = yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "To be approved", assigned_to: agent.agent.handle, gem_bounty: 40 },
        headers: {}
      })
      yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
      const approve = rawRequest("POST", `/api/agent/tasks/${task.id}/approve`, {
        key: human.api_key,
        body: "{}",
        headers: keyed ? { "idempotency-key": `approve-${task.id}` } : {}
      })

      yield* down
      expectWalletDown(yield* approve)
      const still = yield* rawRequest("GET", `/api/agent/tasks/${task.id}`, { key: human.api_key })
      expect(still.body.task.status).toBe("pending_approval")

      yield* up
      const approved = yield* approve
      expect(approved.status).toBe(200)
      expect(approved.body.task.status).toBe("completed")
      expect(yield* escrow(agent.api_key)).toBe(0)
      expect(yield* ledger(task.id)).toEqual(["bounty_funded", "bounty_pending", "task_completion"])
    })))

  it.effect("what no retry finishes, the wallet's sweep burns: a cancel's owed burn, escrow for a task never made", () =>
    withInvariant(Effect.gen(function*() {
      const human = yield* signUp(uniqueHandle("h"))
      const project = yield* newProject(human.client, { visibility: "public" })
      const { task } = yield* human.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "Cancelled, never retried", gem_bounty: 30 },
        headers: {}
      })
      yield* down
      expectWalletDown(
        yield* rawRequest("POST", `/api/agent/tasks/${task.id}/update`, {
          key: human.api_key,
          body: JSON.stringify({ status: "cancelled" })
        })
      )
      yield* up
      yield* sweepExpired
      expect(yield* ledger(task.id)).toEqual(["bounty_funded", "bounty_cancelled"])
      expect(yield* escrow(human.api_key)).toBe(0)

      // funded over RPC ahead of its task, which then never committed (and the undo did not reach the wallet)
      const never = Ids.TaskId.make(randomUUID())
      const sql = yield* SqlClient.SqlClient
      const bounties = yield* Bounties
      const { tracked } = yield* BalanceChanges
      yield* bounties.fund(never, human.user.id, 25).pipe(sql.withTransaction, Effect.orDie, tracked)
      expect(yield* escrow(human.api_key)).toBe(25)
      // a task being created right now may still commit: left alone until STRANDED_AFTER_MS
      yield* sweepExpired
      expect(yield* escrow(human.api_key)).toBe(25)
      yield* Effect.gen(function*() {
        yield* TestClock.setTime(Date.now() + STRANDED_AFTER_MS + 60_000)
        yield* sweepExpired
      }).pipe(Effect.provide(TestContext.TestContext))
      expect(yield* escrow(human.api_key)).toBe(0)
      expect(yield* ledger(never)).toEqual(["bounty_funded", "bounty_cancelled"])
    })))
})
