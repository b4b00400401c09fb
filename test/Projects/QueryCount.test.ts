import { SqlClient } from "@effect/sql"
import { expect, layer } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Effect, Layer, Option, Tracer } from "effect"
import { TestApp } from "../support/TestApp.js"
import { humanWithAgent, newProject } from "./support.js"

/** Every span the app opens, kept so a test can count the SQL statements (`sql.execute`) under one request. */
const spans: Array<Tracer.Span> = []
const Recording = Layer.unwrapEffect(Effect.map(Effect.tracer, (base) =>
  Layer.setTracer(Tracer.make({
    span: (...args) => {
      const span = base.span(...args)
      spans.push(span)
      return span
    },
    context: base.context
  }))))

const within = (span: Tracer.AnySpan, name: (n: string) => boolean): boolean => {
  let cur: Option.Option<Tracer.AnySpan> = Option.some(span)
  while (Option.isSome(cur)) {
    if (cur.value._tag === "Span" && name(cur.value.name)) return true
    cur = cur.value._tag === "Span" ? cur.value.parent : Option.none()
  }
  return false
}

/**
 * The SQL statements the tasks service ran from `from` on. (The key lookup is cached after the first request;
 * nothing else in a request touches the database.)
 */
const statementsSince = (from: number) =>
  spans.slice(from).filter((s) => s.name === "sql.execute" && within(s, (n) => n.startsWith("Tasks.")))

/**
 * The count is of this node's statements: other test files writing `tasks` on a shared PostgreSQL server would drop
 * the read cache by commit notice (that path has its own tests in test/Cache), and a slow machine must not outlast
 * the TTL between two reads.
 */
const config = { READ_CACHE_TTL: "3600 seconds", READ_CACHE_NOTICES: "false" }

layer(Layer.provideMerge(TestApp(config), Recording), { excludeTestServices: true })("query count", (it) => {
  it.effect("a page of 50 tasks (a project of 1,000 with assignees and comment counts) costs at most two queries", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const sql = yield* SqlClient.SqlClient
      const assignees = [agent.agent.id, human.user.id]
      yield* sql`INSERT INTO tasks (project_id, created_by, title, assigned_to_id, created_at, updated_at)
        SELECT ${p.id}::uuid, ${agent.agent.id}::uuid, 'task ' || i,
          (ARRAY[${assignees[0]}::uuid, ${assignees[1]}::uuid, NULL])[1 + i % 3],
          now() + i * interval '1 millisecond', now()
        FROM generate_series(1, 1000) AS i`
      yield* sql`INSERT INTO task_comments (task_id, author_id, content, created_at)
        SELECT t.id, ${human.user.id}::uuid, 'c', now() FROM tasks t, generate_series(1, 2)
        WHERE t.project_id = ${p.id} AND t.title LIKE 'task %5'`
      const path = { project_id: p.id as Ids.ProjectId }
      // warm: the key cache, prepared statements (another page: the pages below are read cache misses)
      yield* agent.client.tasks.listTasks({ path, urlParams: { page: 2 } })

      for (const page of [1, 7, 20]) {
        const from = spans.length
        const res = yield* agent.client.tasks.listTasks({ path, urlParams: { page } })
        const statements = statementsSince(from)
        expect(res.tasks.length).toBe(50)
        expect(res.meta).toEqual({ total: 1000, pages: 20, page, limit: 50 })
        // the access check and the page; the counter sees them (it is not vacuously zero)
        expect(statements.length).toBeGreaterThan(0)
        expect(statements.length).toBeLessThanOrEqual(2)
        expect(res.tasks.filter((t) => t.assigned_to !== null).length).toBeGreaterThan(30)
        expect(res.tasks.filter((t) => t.comment_count === 2).length).toBe(5)
      }
      // read again with nothing written since: from the read cache, no statement
      const again = spans.length
      const cached = yield* agent.client.tasks.listTasks({ path, urlParams: { page: 7 } })
      expect(cached.meta).toEqual({ total: 1000, pages: 20, page: 7, limit: 50 })
      expect(cached.tasks.filter((t) => t.comment_count === 2).length).toBe(5)
      expect(statementsSince(again).length).toBe(0)
      // the caller's own tasks across projects: one statement
      const from = spans.length
      const mine = yield* agent.client.tasks.myTasks({ urlParams: {} })
      expect(mine.tasks.length).toBe(50)
      expect(statementsSince(from).length).toBe(1)
    }))
})
