import { describe, expect, it } from "@effect/vitest"
import type { Auth, Ids } from "@shoal/domain"
import { Effect } from "effect"
import * as Policy from "../../src/Tasks/Policy.js"

/** The task rules on their own (src/Tasks/Policy.ts), without a server: the tag each refusal carries. */
const me = { id: "me" as Ids.UserId, handle: "me", userType: "agent" } as unknown as Auth.Principal
const funder = { id: "funder" as Ids.UserId, handle: "funder", userType: "human" } as unknown as Auth.Principal

const task = (facts: Partial<Policy.TaskFacts> = {}): Policy.TaskFacts => ({
  id: "t" as Ids.TaskId,
  visibility: "public",
  caller_role: "member",
  owns_owner: false,
  status: "in_progress",
  assigned_to_id: null,
  gem_bounty: 0,
  funder_id: null,
  bounty_state: null,
  ...facts
})
const bounty = { gem_bounty: 50, funder_id: "funder" as Ids.UserId, bounty_state: "escrow" }

const outcome = (effect: Effect.Effect<void, { readonly _tag: string }>) =>
  Effect.map(Effect.either(effect), (r) => r._tag === "Right" ? "ok" : r.left._tag)

describe("task policy", () => {
  it.effect("requireCompleter: the assignee; a gig → Conflict (apply first); anyone else → Forbidden", () =>
    Effect.gen(function*() {
      expect(yield* outcome(Policy.requireCompleter(me, task({ assigned_to_id: me.id })))).toBe("ok")
      expect(yield* outcome(Policy.requireCompleter(me, task(bounty)))).toBe("Conflict")
      expect(yield* outcome(Policy.requireCompleter(me, task({ assigned_to_id: "x" as Ids.UserId })))).toBe(
        "Forbidden"
      )
      expect(yield* outcome(Policy.requireCompleter(me, task({ caller_role: "owner" })))).toBe("Forbidden")
    }))

  it.effect("requireAssign: a member takes an open task without a bounty or repeats its own; managers any", () =>
    Effect.gen(function*() {
      expect(yield* outcome(Policy.requireAssign(me, task(), me.id))).toBe("ok")
      expect(yield* outcome(Policy.requireAssign(me, task({ assigned_to_id: me.id }), me.id))).toBe("ok")
      expect(yield* outcome(Policy.requireAssign(me, task(bounty), me.id))).toBe("Forbidden")
      expect(yield* outcome(Policy.requireAssign(me, task({ assigned_to_id: "x" as Ids.UserId }), me.id))).toBe(
        "Forbidden"
      )
      expect(yield* outcome(Policy.requireAssign(me, task(), "x" as Ids.UserId))).toBe("Forbidden")
      expect(yield* outcome(Policy.requireAssign(me, task({ ...bounty, caller_role: "manager" }), me.id))).toBe("ok")
      expect(yield* outcome(Policy.requireAssign(me, task({ owns_owner: true, caller_role: null }), null))).toBe("ok")
    }))

  it.effect("requireStatusChange: own task yes, others' no; a pending bounty is closed by its funder only", () =>
    Effect.gen(function*() {
      expect(yield* outcome(Policy.requireStatusChange(me, task({ assigned_to_id: me.id }), "review", me.id))).toBe(
        "ok"
      )
      expect(yield* outcome(Policy.requireStatusChange(me, task(), "review", null))).toBe("Forbidden")
      const pending = task({ ...bounty, bounty_state: "pending", status: "pending_approval", assigned_to_id: me.id })
      for (const status of ["cancelled", "archived"] as const) {
        expect(yield* outcome(Policy.requireStatusChange(me, pending, status, me.id))).toBe("Forbidden")
        expect(yield* outcome(Policy.requireStatusChange(me, { ...pending, caller_role: "owner" }, status, me.id)))
          .toBe("Forbidden")
        expect(yield* outcome(Policy.requireStatusChange(funder, pending, status, me.id))).toBe("ok")
        // a bounty still in escrow: the assignee may work on it but not burn it; a manager or the funder may
        const escrow = task({ ...bounty, assigned_to_id: me.id })
        expect(yield* outcome(Policy.requireStatusChange(me, escrow, status, me.id))).toBe("Forbidden")
        expect(yield* outcome(Policy.requireStatusChange(me, { ...escrow, caller_role: "manager" }, status, me.id)))
          .toBe("ok")
        expect(yield* outcome(Policy.requireStatusChange(funder, escrow, status, me.id))).toBe("ok")
      }
      expect(
        yield* outcome(Policy.requireStatusChange(me, task({ ...bounty, assigned_to_id: me.id }), "review", me.id))
      )
        .toBe("ok")
    }))

  it.effect("requireMove and requireApprover: a bounty goes with its funder only, into a project it owns", () =>
    Effect.gen(function*() {
      const owned = { visibility: "private", caller_role: "owner", owns_owner: false } as const
      const joined = { visibility: "private", caller_role: "member", owns_owner: false } as const
      expect(yield* outcome(Policy.requireMove(me, task(), owned))).toBe("Forbidden")
      expect(yield* outcome(Policy.requireMove(me, task({ caller_role: "manager" }), joined))).toBe("ok")
      expect(yield* outcome(Policy.requireMove(me, task({ ...bounty, caller_role: "manager" }), owned))).toBe(
        "Conflict"
      )
      expect(yield* outcome(Policy.requireMove(funder, task({ ...bounty, caller_role: "owner" }), joined))).toBe(
        "Conflict"
      )
      expect(yield* outcome(Policy.requireMove(funder, task({ ...bounty, caller_role: "owner" }), owned))).toBe("ok")
      const other = { ...funder, id: "other" as Ids.UserId } as Auth.Principal
      expect(yield* outcome(Policy.requireApprover(funder, task(bounty)))).toBe("ok")
      expect(yield* outcome(Policy.requireApprover(other, task({ ...bounty, caller_role: "owner" })))).toBe(
        "Forbidden"
      )
    }))
})
