import { expect } from "@effect/vitest"
import type { Auth, Ids } from "@shoal/domain"
import { Effect, TestClock, TestContext } from "effect"
import { Gigs } from "../../src/Gigs.js"
import { failure, newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { client, createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet, walletClient } from "../Wallet/support.js"

const DAY = 86_400_000

const events = (key: string) =>
  Effect.flatMap(client(key), (c) => Effect.map(c.events.poll({ urlParams: { limit: 500 } }), (r) => r.events))

/** A human with a public project (skill `rust-<n>`) and an unassigned task with a bounty: a gig. */
const gigOf = (bounty: number, visibility: "public" | "private" = "public") =>
  Effect.gen(function*() {
    const owner = yield* signUp(uniqueHandle("h"))
    const skill = uniqueHandle("skill")
    const project = yield* newProject(owner.client, { visibility, skills: [skill] })
    const { task } = yield* owner.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "Port the parser", description: "to Rust", gem_bounty: bounty },
      headers: {}
    })
    return { owner, project, task, skill }
  })

/** Another human's agent: the applicant. */
const applicant = Effect.gen(function*() {
  const human = yield* signUp(uniqueHandle("h"))
  return { human, ...(yield* createAgent(human.api_key, uniqueHandle("a"))) }
})

describeWallet()("gigs", (it) => {
  it.effect("list (public, skill, min_bounty, cursor), apply, 409 twice, applications, accept → assigned", () =>
    Effect.gen(function*() {
      const { owner, project, skill, task } = yield* gigOf(250)
      const anon = yield* client()
      const listed = yield* anon.gigsPublic.listGigs({ urlParams: { skill } })
      expect(listed.gigs).toHaveLength(1)
      expect(listed.gigs[0]).toMatchObject({
        id: task.id,
        title: "Port the parser",
        description: "to Rust",
        gem_bounty: 250,
        skills: [skill],
        project_id: project.id,
        project_title: project.title,
        permalink: task.permalink
      })
      expect(listed.next_cursor).toBeNull()
      expect((yield* anon.gigsPublic.listGigs({ urlParams: { skill, min_bounty: 251 } })).gigs).toHaveLength(0)
      expect((yield* anon.gigsPublic.listGigs({ urlParams: { skill, min_bounty: 250 } })).gigs).toHaveLength(1)

      // a second gig of the same project: pages of one, newest first, the cursor leads to the older
      const { task: second } = yield* owner.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "Second", gem_bounty: 10 },
        headers: {}
      })
      const p1 = yield* anon.gigsPublic.listGigs({ urlParams: { skill, limit: 1 } })
      expect(p1.gigs.map((g) => g.id)).toEqual([second.id])
      const p2 = yield* anon.gigsPublic.listGigs({ urlParams: { skill, limit: 1, cursor: p1.next_cursor! } })
      expect(p2.gigs.map((g) => g.id)).toEqual([task.id])
      expect(p2.next_cursor).toBeNull()

      const a = yield* applicant
      const b = yield* applicant
      const applied = yield* a.client.gigs.applyGig({
        path: { task_id: task.id },
        payload: { message: "I wrote a parser before" },
        headers: {}
      })
      expect(applied.application).toMatchObject({
        task_id: task.id,
        applicant_id: a.agent.id,
        applicant_handle: a.agent.handle,
        message: "I wrote a parser before",
        status: "pending",
        verified: false
      })
      const again = yield* failure(a.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} }))
      expect(again._tag).toBe("Conflict")
      const fromB = yield* b.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} })
      expect(fromB.application.message).toBe("")

      // the task's creator hears of each application
      const heard = (yield* events(owner.api_key)).filter((e) => e.type === "gig.application")
      expect(heard.map((e) => e.data)).toEqual([
        {
          task_id: task.id,
          application_id: applied.application.id,
          applicant_handle: a.agent.handle,
          message: "I wrote a parser before"
        },
        { task_id: task.id, application_id: fromB.application.id, applicant_handle: b.agent.handle, message: "" }
      ])

      // only the owner lists and accepts; the owner cannot apply
      expect((yield* failure(a.client.gigs.listApplications({ path: { task_id: task.id } })))._tag).toBe("Forbidden")
      expect(
        (yield* failure(owner.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} })))._tag
      ).toBe("Forbidden")
      const apps = yield* owner.client.gigs.listApplications({ path: { task_id: task.id } })
      expect(apps.applications.map((x) => x.applicant_handle)).toEqual([a.agent.handle, b.agent.handle])
      expect(
        (yield* failure(a.client.gigs.acceptApplication({
          path: { task_id: task.id, application_id: applied.application.id }
        })))._tag
      ).toBe("Forbidden")

      const accepted = yield* owner.client.gigs.acceptApplication({
        path: { task_id: task.id, application_id: fromB.application.id }
      })
      expect(accepted).toMatchObject({ task_id: task.id, assigned_to_id: b.agent.id })
      expect(accepted.application.status).toBe("accepted")
      const assigned = (yield* events(b.api_key)).filter((e) => e.type === "task.assigned")
      expect(assigned.map((e) => e.data)).toEqual([expect.objectContaining({ id: task.id, project_id: project.id })])
      // the applicant now takes part in the project and sees the task as its own
      const detail = yield* b.client.tasks.getTask({ path: { task_id: task.id } })
      expect(detail.task.assigned_to_id).toBe(b.agent.id)
      const after = yield* owner.client.gigs.listApplications({ path: { task_id: task.id } })
      expect(after.applications.map((x) => x.status)).toEqual(["declined", "accepted"])

      // no longer a gig: not listed, accepting again or applying is a 409
      expect((yield* anon.gigsPublic.listGigs({ urlParams: { skill } })).gigs.map((g) => g.id)).toEqual([second.id])
      expect(
        (yield* failure(owner.client.gigs.acceptApplication({
          path: { task_id: task.id, application_id: applied.application.id }
        })))._tag
      ).toBe("Conflict")
      const late = yield* applicant
      expect(
        (yield* failure(late.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} })))._tag
      ).toBe("Conflict")
    }))

  it.effect("Idempotency-Key on apply: the same answer replayed, one application, one event", () =>
    Effect.gen(function*() {
      const { owner, task } = yield* gigOf(40)
      const a = yield* applicant
      const send = rawRequest("POST", `/api/gigs/${task.id}/apply`, {
        key: a.api_key,
        body: JSON.stringify({ message: "hi" }),
        headers: { "idempotency-key": `apply-${task.id}` }
      })
      const first = yield* send
      const second = yield* send
      expect(first.status).toBe(201)
      expect(second.status).toBe(201)
      expect(second.headers["idempotent-replayed"]).toBe("true")
      expect(second.body).toEqual(first.body)
      const apps = yield* owner.client.gigs.listApplications({ path: { task_id: task.id } })
      expect(apps.applications).toHaveLength(1)
      expect((yield* events(owner.api_key)).filter((e) => e.type === "gig.application")).toHaveLength(1)
      // the same key with another body is a 409
      const other = yield* rawRequest("POST", `/api/gigs/${task.id}/apply`, {
        key: a.api_key,
        body: JSON.stringify({ message: "changed" }),
        headers: { "idempotency-key": `apply-${task.id}` }
      })
      expect(other.status).toBe(409)
    }))

  it.effect("cross-tenant: a private project's task is a 404 to outsiders; an application of another task a 404", () =>
    Effect.gen(function*() {
      const hidden = yield* gigOf(30, "private")
      const a = yield* applicant
      for (
        const call of [
          a.client.gigs.applyGig({ path: { task_id: hidden.task.id }, payload: {}, headers: {} }),
          a.client.gigs.listApplications({ path: { task_id: hidden.task.id } })
        ]
      ) {
        expect((yield* failure(call as Effect.Effect<unknown, { readonly _tag: string }>))._tag).toBe("NotFound")
      }
      expect((yield* (yield* client()).gigsPublic.listGigs({ urlParams: { skill: hidden.skill } })).gigs).toEqual([])

      // a task without a bounty is no gig
      const plain = yield* gigOf(0)
      expect(
        (yield* failure(a.client.gigs.applyGig({ path: { task_id: plain.task.id }, payload: {}, headers: {} })))._tag
      ).toBe("NotFound")

      // the owner of gig X accepting an application made to gig Y (someone else's) by its id
      const x = yield* gigOf(10)
      const y = yield* gigOf(10)
      const onY = yield* a.client.gigs.applyGig({ path: { task_id: y.task.id }, payload: {}, headers: {} })
      const cross = yield* failure(x.owner.client.gigs.acceptApplication({
        path: { task_id: x.task.id, application_id: onY.application.id }
      }))
      expect(cross._tag).toBe("NotFound")
      // and on Y itself: not its project, so a 403; nothing changed
      expect(
        (yield* failure(x.owner.client.gigs.acceptApplication({
          path: { task_id: y.task.id, application_id: onY.application.id }
        })))._tag
      ).toBe("Forbidden")
      const ys = yield* y.owner.client.gigs.listApplications({ path: { task_id: y.task.id } })
      expect(ys.applications.map((x) => x.status)).toEqual(["pending"])
    }))

  it.effect("premium: Priority Task Queue lists the holder first, the badge shows verified, both until expiry (TestClock)", () =>
    Effect.gen(function*() {
      const { owner, task } = yield* gigOf(60)
      const early = yield* applicant
      const premium = yield* applicant
      yield* early.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} })
      yield* premium.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} })
      const order = Effect.map(
        owner.client.gigs.listApplications({ path: { task_id: task.id } }),
        (r) => r.applications.map((x) => [x.applicant_handle, x.verified])
      )
      expect(yield* order).toEqual([[early.agent.handle, false], [premium.agent.handle, false]])

      const humanWallet = yield* walletClient(premium.human.api_key)
      yield* humanWallet.account.award({ payload: { to_agent: premium.agent.id, amount: 1100 }, headers: {} })
      const wallet = yield* walletClient(premium.api_key)
      const redeemedAt = Date.now()
      yield* wallet.account.redeem({ payload: { feature_id: "priority_queue_7d", confirm: true }, headers: {} })
      yield* wallet.account.redeem({ payload: { feature_id: "verified_badge", confirm: true }, headers: {} })
      expect(yield* order).toEqual([[premium.agent.handle, true], [early.agent.handle, false]])
      // the badge shows on the holder's profile, not on anyone else's
      expect((yield* premium.client.profiles.me()).user.verified).toBe(true)
      expect((yield* early.client.profiles.me()).user.verified).toBe(false)

      // read through the service on the test clock: 6 days on the queue still holds, 8 days on it has expired;
      // the badge is permanent
      const ownerPrincipal: Auth.Principal = {
        id: owner.user.id as Ids.UserId,
        handle: owner.user.handle as Ids.Handle,
        userType: "human",
        ownerId: null,
        keyHash: "test"
      }
      const gigs = yield* Gigs
      const at = (ms: number) =>
        Effect.gen(function*() {
          yield* TestClock.setTime(ms)
          const rows = yield* gigs.applications(ownerPrincipal, task.id as Ids.TaskId)
          return rows.map((x) => [x.applicant_handle, x.verified])
        }).pipe(Effect.provide(TestContext.TestContext))
      expect(yield* at(redeemedAt + 6 * DAY)).toEqual([[premium.agent.handle, true], [early.agent.handle, false]])
      expect(yield* at(redeemedAt + 8 * DAY)).toEqual([[early.agent.handle, false], [premium.agent.handle, true]])
    }))
})
