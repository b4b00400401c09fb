import { describe, expect, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as Policy from "../../src/Teams/Policy.js"
import { failure } from "../Projects/support.js"
import { expectError, rawRequest } from "../support/Raw.js"
import { describeApp, signUp } from "../support/TestApp.js"

describe("Teams/Policy", () => {
  const owner = Option.some("owner" as const)
  const admin = Option.some("admin" as const)
  const member = Option.some("member" as const)
  const none = Option.none()
  it("only the owner names or removes admins; the owner or an admin manages plain members", () => {
    expect([owner, admin, member, none].map(Policy.canManageAdmins)).toEqual([true, false, false, false])
    expect([owner, admin, member, none].map(Policy.canManageMembers)).toEqual([true, true, false, false])
    expect(Policy.canRemove(admin, admin, false)).toBe(false)
    expect(Policy.canRemove(owner, admin, false)).toBe(true)
    expect(Policy.canRemove(admin, admin, true)).toBe(true)
    expect(Policy.canRemove(admin, member, false)).toBe(true)
    expect(Policy.canRemove(member, member, false)).toBe(false)
  })
})

describeApp()("squad roles: only the owner names or removes admins", (it) => {
  it.effect("an admin removing another admin is a 403 and the admin stays; the owner removes it", () =>
    Effect.gen(function*() {
      const owner = yield* signUp()
      const first = yield* signUp()
      const second = yield* signUp()
      const plain = yield* signUp()
      const { team } = yield* owner.client.teams.createTeam({ payload: { name: "Crew" }, headers: {} })
      const path = { team_id: team.id }
      for (const a of [first, second]) {
        yield* owner.client.teams.addTeamMember({ path, payload: { handle: a.user.handle, role: "admin" } })
      }
      yield* first.client.teams.addTeamMember({ path, payload: { handle: plain.user.handle } })
      const roles = Effect.map(
        owner.client.teams.getTeam({ path }),
        (r) => r.team.members?.map((m) => [m.handle, m.role])
      )
      const before = yield* roles

      const refused = yield* failure(
        first.client.teams.removeTeamMember({ path: { ...path, handle: second.user.handle } })
      )
      expect(refused._tag).toBe("Forbidden")
      expect(refused.message).toContain("owner")
      expectError(
        yield* rawRequest("DELETE", `/api/agent/teams/${team.id}/members/${second.user.handle}`, {
          key: first.api_key
        }),
        403,
        "forbidden"
      )
      // naming an admin, or demoting one by adding it again as a member, changes nothing either
      const naming = yield* failure(
        first.client.teams.addTeamMember({ path, payload: { handle: plain.user.handle, role: "admin" } })
      )
      expect(naming._tag).toBe("Forbidden")
      yield* first.client.teams.addTeamMember({ path, payload: { handle: second.user.handle, role: "member" } })
      // nor can an admin remove or demote the owner
      expect(
        (yield* failure(first.client.teams.removeTeamMember({ path: { ...path, handle: owner.user.handle } })))._tag
      )
        .toBe("Conflict")
      yield* first.client.teams.addTeamMember({ path, payload: { handle: owner.user.handle, role: "member" } })
      expect(yield* roles).toEqual(before)

      // an admin still removes plain members, and may leave; the owner removes an admin
      yield* first.client.teams.removeTeamMember({ path: { ...path, handle: plain.user.handle } })
      yield* second.client.teams.removeTeamMember({ path: { ...path, handle: second.user.handle } })
      yield* owner.client.teams.addTeamMember({ path, payload: { handle: second.user.handle, role: "admin" } })
      yield* owner.client.teams.removeTeamMember({ path: { ...path, handle: first.user.handle } })
      expect(yield* roles).toEqual([[owner.user.handle, "owner"], [second.user.handle, "admin"]])
    }))

  it.effect("a plain member removes nobody, not even another member (403)", () =>
    Effect.gen(function*() {
      const owner = yield* signUp()
      const a = yield* signUp()
      const b = yield* signUp()
      const { team } = yield* owner.client.teams.createTeam({ payload: { name: "Crew" }, headers: {} })
      const path = { team_id: team.id }
      for (const m of [a, b]) yield* owner.client.teams.addTeamMember({ path, payload: { handle: m.user.handle } })
      expectError(
        yield* rawRequest("DELETE", `/api/agent/teams/${team.id}/members/${b.user.handle}`, { key: a.api_key }),
        403,
        "forbidden"
      )
      expect((yield* owner.client.teams.getTeam({ path })).team.member_count).toBe(3)
    }))
})
