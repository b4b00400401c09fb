import { expect } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp, uniqueHandle } from "../support/TestApp.js"
import { failure, humanWithAgent, newProject } from "./support.js"

describeApp({ PUBLIC_URL: "https://shoal.example" })("projects", (it) => {
  it.effect("create answers the project with a permalink, defaults to private, keeps deadline and types", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const res = yield* agent.client.projects.createProject({
        payload: {
          title: "Newsletter",
          description: "weekly",
          module_type: "content_schedule",
          project_type: "newsletter",
          deadline: "2026-12-01T17:30:00",
          skills: ["writing"]
        },
        headers: {}
      })
      expect(res.status).toBe("success")
      expect(res.project).toMatchObject({
        title: "Newsletter",
        visibility: "private",
        status: "active",
        module_type: "content_schedule",
        project_type: "newsletter",
        deadline: "2026-12-01T17:30:00.000Z",
        team_id: null,
        team_name: null,
        skills: ["writing"],
        owner_id: agent.agent.id,
        permalink: `https://shoal.example/projects/${res.project.id}`
      })
      expect(res.warning).toBeUndefined()
      const dated = yield* newProject(agent.client, { deadline: "2026-12-01" })
      // one format for the field: a date is midnight UTC, answered as a date-time
      expect(dated.deadline).toBe("2026-12-01T00:00:00.000Z")
      const zoned = yield* newProject(agent.client, { deadline: "2026-12-01T17:30:00+02:00" })
      expect(zoned.deadline).toBe("2026-12-01T15:30:00.000Z")
    }))

  it.effect("a project_type outside its module_type's list is a 400; so is an unknown module_type", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const e = yield* failure(newProject(agent.client, { module_type: "sourcing", project_type: "newsletter" }))
      expect(e._tag).toBe("InvalidRequest")
      expect(e.message).toMatch(/pipeline_container, supplier_deal/)
      const raw = yield* rawRequest("POST", "/api/agent/projects", {
        key: agent.api_key,
        body: JSON.stringify({ title: "x", module_type: "cooking" })
      })
      expectError(raw, 400, "invalid_request")
      const orphan = yield* failure(newProject(agent.client, { project_type: "data_grid" }))
      expect(orphan._tag).toBe("InvalidRequest")
      const long = yield* rawRequest("POST", "/api/agent/projects", {
        key: agent.api_key,
        body: JSON.stringify({ title: "x".repeat(301) })
      })
      expectError(long, 400, "invalid_request")
      const unknownField = yield* rawRequest("POST", "/api/agent/projects", {
        key: agent.api_key,
        body: JSON.stringify({ title: "x", owner_id: agent.agent.id })
      })
      expectError(unknownField, 400, "invalid_request")
    }))

  it.effect("list: q, mine, member_only, module_type, page/limit and meta; private projects of others hidden", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const other = yield* signUp()
      const tag = uniqueHandle("srch")
      const mine = yield* newProject(agent.client, { title: `${tag} alpha`, module_type: "enrichment" })
      yield* newProject(agent.client, { title: `${tag} beta`, visibility: "public" })
      const theirsPublic = yield* newProject(other.client, { title: `${tag} gamma`, visibility: "public" })
      const theirsPrivate = yield* newProject(other.client, { title: `${tag} delta` })
      const seen = yield* agent.client.projects.listProjects({ urlParams: { q: tag.toUpperCase() } })
      expect(seen.projects.map((p) => p.title).sort()).toEqual([`${tag} alpha`, `${tag} beta`, `${tag} gamma`])
      expect(seen.projects.some((p) => p.id === theirsPrivate.id)).toBe(false)
      expect(seen.meta).toEqual({ total: 3, pages: 1, page: 1, limit: 50 })
      const own = yield* agent.client.projects.listProjects({ urlParams: { q: tag, mine: "true" } })
      expect(own.projects.length).toBe(2)
      const mod = yield* agent.client.projects.listProjects({ urlParams: { q: tag, module_type: "enrichment" } })
      expect(mod.projects.map((p) => p.id)).toEqual([mine.id])
      const paged = yield* agent.client.projects.listProjects({ urlParams: { q: tag, limit: 2, page: 2 } })
      expect(paged.projects.length).toBe(1)
      expect(paged.meta).toEqual({ total: 3, pages: 2, page: 2, limit: 2 })
      const beyond = yield* agent.client.projects.listProjects({ urlParams: { q: tag, limit: 2, page: 9 } })
      expect(beyond.projects).toEqual([])
      expect(beyond.meta.total).toBe(3)
      yield* other.client.projects.addParticipant({
        path: { project_id: theirsPrivate.id },
        payload: { handle: agent.agent.handle }
      })
      const memberOnly = yield* agent.client.projects.listProjects({ urlParams: { q: tag, member_only: "true" } })
      expect(memberOnly.projects.map((p) => p.id)).toEqual([theirsPrivate.id])
      expect(theirsPublic.visibility).toBe("public")
      const tooMany = yield* rawRequest("GET", "/api/agent/projects?limit=1001", { key: agent.api_key })
      expectError(tooMany, 400, "invalid_request")
      const max = yield* agent.client.projects.listProjects({ urlParams: { limit: 1000 } })
      expect(max.meta.limit).toBe(1000)
    }))

  it.effect("a private project is a 404 to a stranger on every route; public is readable, not writable (403)", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const stranger = yield* signUp()
      const secret = yield* newProject(agent.client)
      const open = yield* newProject(agent.client, { visibility: "public" })
      const path = { project_id: secret.id }
      const s = stranger.client.projects
      for (
        const call of [
          s.getProject({ path }) as Effect.Effect<unknown, { readonly _tag: string }>,
          s.updateProject({ path, payload: { description: "x" } }),
          s.deleteProject({ path }),
          s.listMembers({ path }),
          s.addParticipant({ path, payload: { handle: stranger.user.handle } }),
          s.moveTasks({ path, payload: { target_project_id: open.id } })
        ]
      ) {
        expect((yield* failure(call))._tag).toBe("NotFound")
      }
      const pub = { project_id: open.id }
      expect((yield* s.getProject({ path: pub })).project.id).toBe(open.id)
      expect((yield* s.listMembers({ path: pub })).members.length).toBe(1)
      for (
        const call of [
          s.updateProject({ path: pub, payload: { description: "x" } }) as Effect.Effect<
            unknown,
            { readonly _tag: string }
          >,
          s.deleteProject({ path: pub }),
          s.addParticipant({ path: pub, payload: { handle: stranger.user.handle } })
        ]
      ) {
        expect((yield* failure(call))._tag).toBe("Forbidden")
      }
      const missing = yield* failure(s.getProject({ path: { project_id: crypto.randomUUID() as Ids.ProjectId } }))
      expect(missing._tag).toBe("NotFound")
    }))

  it.effect("PATCH: owner and managers change the project; members get a 403; the human owner of the owner may", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const member = yield* signUp()
      const manager = yield* signUp()
      const p = yield* newProject(agent.client)
      const path = { project_id: p.id }
      yield* agent.client.projects.addParticipant({ path, payload: { handle: member.user.handle } })
      yield* agent.client.projects.addParticipant({ path, payload: { handle: manager.user.handle, role: "manager" } })
      const denied = yield* failure(member.client.projects.updateProject({ path, payload: { status: "completed" } }))
      expect(denied._tag).toBe("Forbidden")
      const byManager = yield* manager.client.projects.updateProject({
        path,
        payload: { status: "completed", visibility: "public", module_type: "sourcing", project_type: "supplier_deal" }
      })
      expect(byManager.project).toMatchObject({
        status: "completed",
        visibility: "public",
        project_type: "supplier_deal"
      })
      const bad = yield* failure(agent.client.projects.updateProject({ path, payload: { project_type: "video" } }))
      expect(bad._tag).toBe("InvalidRequest")
      const byHuman = yield* human.client.projects.updateProject({ path, payload: { deadline: null } })
      expect(byHuman.project.deadline).toBeNull()
      const members = yield* agent.client.projects.listMembers({ path })
      expect(members.members.map((m) => [m.handle, m.role, m.type])).toEqual([
        [agent.agent.handle, "owner", "agent"],
        [member.user.handle, "member", "human"],
        [manager.user.handle, "manager", "human"]
      ])
      expect(members.members[0]!.display_name).toBe("Worker Agent")
      const notManager = yield* failure(
        member.client.projects.addParticipant({ path, payload: { handle: member.user.handle, role: "manager" } })
      )
      expect(notManager._tag).toBe("Forbidden")
    }))

  it.effect("add_participant by handle: unknown handle 404, twice changes nothing", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const friend = yield* signUp()
      const p = yield* newProject(agent.client)
      const path = { project_id: p.id }
      const first = yield* agent.client.projects.addParticipant({ path, payload: { handle: friend.user.handle } })
      expect(first).toMatchObject({
        added: true,
        member: { handle: friend.user.handle, role: "member", type: "human" }
      })
      const again = yield* agent.client.projects.addParticipant({
        path,
        payload: { handle: friend.user.handle.toUpperCase() }
      })
      expect(again.added).toBe(false)
      const nobody = yield* failure(
        agent.client.projects.addParticipant({ path, payload: { handle: "nobody-here-x" } })
      )
      expect(nobody._tag).toBe("NotFound")
      // now a participant, the friend sees the private project
      expect((yield* friend.client.projects.getProject({ path })).project.id).toBe(p.id)
    }))

  it.effect("DELETE removes an empty project; the owner only", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const p = yield* newProject(agent.client)
      const res = yield* agent.client.projects.deleteProject({ path: { project_id: p.id } })
      expect(res.status).toBe("success")
      expect((yield* failure(agent.client.projects.getProject({ path: { project_id: p.id } })))._tag).toBe("NotFound")
    }))

  it.effect("Idempotency-Key on create replays the first project", () =>
    Effect.gen(function*() {
      const { agent } = yield* humanWithAgent
      const key = uniqueHandle("idem")
      const body = JSON.stringify({ title: "Once" })
      const a = yield* rawRequest("POST", "/api/agent/projects", {
        key: agent.api_key,
        body,
        headers: { "idempotency-key": key }
      })
      const b = yield* rawRequest("POST", "/api/agent/projects", {
        key: agent.api_key,
        body,
        headers: { "idempotency-key": key }
      })
      expect(a.status).toBe(201)
      expect(b.status).toBe(201)
      expect(b.headers["idempotent-replayed"]).toBe("true")
      expect(b.body.project.id).toBe(a.body.project.id)
    }))
})
