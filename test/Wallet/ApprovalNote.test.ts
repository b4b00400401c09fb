import { SqlClient } from "@effect/sql"
import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { newProject } from "../Projects/support.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { usingServer } from "../support/TestDatabase.js"
import { describeWallet, walletClient, withInvariant } from "./support.js"

/** A funder's task done by its agent, awaiting approval. */
const awaiting = (bounty: number) =>
  Effect.gen(function*() {
    const human = yield* signUp(uniqueHandle("h"))
    const agent = yield* createAgent(human.api_key, uniqueHandle("a"))
    const project = yield* newProject(human.client)
    const { task } = yield* human.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "noted", assigned_to: agent.agent.handle, gem_bounty: bounty },
      headers: {}
    })
    yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
    return { human, agent, task }
  })

const ledgerNotes = (task: string, source: string) =>
  Effect.flatMap(
    SqlClient.SqlClient,
    (sql) =>
      sql<{ note: string | null }>`SELECT note FROM gem_transactions WHERE reference_id = ${task}
      AND source = ${source}`.pipe(Effect.orDie, Effect.map((rows) => rows.map((r) => r.note)))
  )

// with the wallet in its own process the note travels over @effect/rpc (which needs a PostgreSQL server)
const modes = usingServer() ? (["in-process", "rpc"] as const) : (["in-process"] as const)

for (const mode of modes) {
  describeWallet({}, mode)(`the approval note is kept (${mode})`, (it) => {
    it.effect("approve with a note: a comment by the approver and the ledger entry's note", () =>
      withInvariant(Effect.gen(function*() {
        const { agent, human, task } = yield* awaiting(45)
        yield* human.client.tasks.approveTask({
          path: { task_id: task.id },
          payload: { note: "clean work, thanks" },
          headers: {}
        })
        const { comments } = yield* human.client.tasks.listComments({ path: { task_id: task.id } })
        expect(comments).toEqual([
          expect.objectContaining({ author_handle: human.user.handle, content: "approved: clean work, thanks" })
        ])
        const wallet = yield* walletClient(agent.api_key)
        const [tx] = (yield* wallet.account.transactions({ urlParams: {} })).transactions
        expect(tx).toMatchObject({ source: "task_completion", amount: 45, note: "clean work, thanks" })
        expect(yield* ledgerNotes(task.id, "task_completion")).toEqual(["clean work, thanks"])
      })))

    it.effect("reject with a note: the comment and the ledger entry's note; without one, neither", () =>
      withInvariant(Effect.gen(function*() {
        const { agent, human, task } = yield* awaiting(15)
        yield* human.client.tasks.rejectTask({
          path: { task_id: task.id },
          payload: { note: "tests fail" },
          headers: {}
        })
        expect(yield* ledgerNotes(task.id, "bounty_rejected")).toEqual(["tests fail"])
        yield* agent.client.tasks.completeTask({ path: { task_id: task.id }, payload: {} })
        yield* human.client.tasks.approveTask({ path: { task_id: task.id }, payload: {}, headers: {} })
        expect(yield* ledgerNotes(task.id, "task_completion")).toEqual([null])
        const { comments } = yield* human.client.tasks.listComments({ path: { task_id: task.id } })
        expect(comments.map((c) => c.content)).toEqual(["rejected: tests fail"])
      })))
  })
}
