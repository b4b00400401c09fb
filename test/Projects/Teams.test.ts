import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { describeApp, signUp, uniqueHandle } from "../support/TestApp.js"
import { failure, humanWithAgent, newProject } from "./support.js"

describeApp()("squads", (it) => {
  it.effect("create makes the caller the owner; get lists members; list mine=true keeps the caller's squads", () =>
    Effect.gen(function*() {
      const owner = yield* signUp(uniqueHandle("o"), "Squad Owner")
      const other = yield* signUp()
      const handle = uniqueHandle("sq")
      const created = yield* owner.client.teams.createTeam({
        payload: { name: "Night Shift", handle: handle.toUpperCase(), type: "squad" },
        headers: {}
      })
      expect(created.team).toMatchObject({ name: "Night Shift", handle, type: "squad", member_count: 1 })
      expect(created.team.members?.map((m) => [m.handle, m.role, m.type])).toEqual([
        [owner.user.handle, "owner", "human"]
      ])
      yield* other.client.teams.createTeam({ payload: { name: "Other" }, headers: {} })
      const mine = yield* owner.client.teams.listTeams({ urlParams: { mine: "true" } })
      expect(mine.teams.map((t) => t.id)).toEqual([created.team.id])
      const all = yield* owner.client.teams.listTeams({ urlParams: {} })
      expect(all.teams.length).toBeGreaterThanOrEqual(2)
      const taken = yield* failure(other.client.teams.createTeam({ payload: { name: "x", handle }, headers: {} }))
      expect(taken._tag).toBe("Conflict")
    }))

  it.effect("the owner adds and removes members (admins too); the owner cannot be removed", () =>
    Effect.gen(function*() {
      const owner = yield* signUp()
      const admin = yield* signUp()
      const member = yield* signUp()
      const { team } = yield* owner.client.teams.createTeam({ payload: { name: "Crew" }, headers: {} })
      const path = { team_id: team.id }
      yield* owner.client.teams.addTeamMember({ path, payload: { handle: admin.user.handle, role: "admin" } })
      const added = yield* admin.client.teams.addTeamMember({ path, payload: { handle: member.user.handle } })
      expect(added.team.members?.map((m) => m.role)).toEqual(["owner", "admin", "member"])
      const noAdmin = yield* failure(
        admin.client.teams.addTeamMember({ path, payload: { handle: member.user.handle, role: "admin" } })
      )
      expect(noAdmin._tag).toBe("Forbidden")
      const memberCannot = yield* failure(
        member.client.teams.removeTeamMember({ path: { ...path, handle: admin.user.handle } })
      )
      expect(memberCannot._tag).toBe("Forbidden")
      const removed = yield* admin.client.teams.removeTeamMember({ path: { ...path, handle: member.user.handle } })
      expect(removed.team.members?.map((m) => m.handle)).toEqual([owner.user.handle, admin.user.handle])
      const ownerStays = yield* failure(
        admin.client.teams.removeTeamMember({ path: { ...path, handle: owner.user.handle } })
      )
      expect(ownerStays._tag).toBe("Conflict")
      const got = yield* member.client.teams.getTeam({ path })
      expect(got.team.member_count).toBe(2)
    }))

  it.effect("team_id on a project needs the caller or its owner in the squad; team_name shows in lists", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const outsider = yield* signUp()
      const { team } = yield* human.client.teams.createTeam({ payload: { name: "Builders" }, headers: {} })
      // the agent is not a member, but its owner is
      const p = yield* newProject(agent.client, { team_id: team.id, title: `${team.id} squad project` })
      expect(p).toMatchObject({ team_id: team.id, team_name: "Builders" })
      const listed = yield* agent.client.projects.listProjects({ urlParams: { q: team.id } })
      expect(listed.projects.map((x) => x.team_name)).toEqual(["Builders"])
      const denied = yield* failure(newProject(outsider.client, { team_id: team.id }))
      expect(denied._tag).toBe("Forbidden")
      const own = yield* newProject(outsider.client)
      const patch = yield* failure(
        outsider.client.projects.updateProject({ path: { project_id: own.id }, payload: { team_id: team.id } })
      )
      expect(patch._tag).toBe("Forbidden")
    }))
})
