import { expect } from "@effect/vitest"
import { Effect } from "effect"
import { newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"
import { client, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet } from "../Wallet/support.js"

describeWallet()("gig list", (it) => {
  it.effect("skill matches in any letter case; items carry deadline, status and owner (in OpenAPI too)", () =>
    Effect.gen(function*() {
      const owner = yield* signUp(uniqueHandle("h"), "Gig Owner")
      const skill = `Py${uniqueHandle("s")}`
      const project = yield* newProject(owner.client, { visibility: "public", skills: [skill] })
      const { task } = yield* owner.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "Write a scraper", gem_bounty: 40, deadline: "2030-05-01" },
        headers: {}
      })
      const anon = yield* client()
      for (const asked of [skill, skill.toLowerCase(), skill.toUpperCase()]) {
        const listed = yield* anon.gigsPublic.listGigs({ urlParams: { skill: asked } })
        expect(listed.gigs.map((g) => g.id)).toEqual([task.id])
      }
      const [gig] = (yield* anon.gigsPublic.listGigs({ urlParams: { skill: skill.toLowerCase() } })).gigs
      expect(gig).toMatchObject({
        id: task.id,
        deadline: "2030-05-01T00:00:00.000Z",
        status: "pending",
        owner: { id: owner.user.id, handle: owner.user.handle, display_name: "Gig Owner" }
      })
      // a skill that only contains the asked one is not it
      expect((yield* anon.gigsPublic.listGigs({ urlParams: { skill: skill.slice(0, -1) } })).gigs).toHaveLength(0)

      const doc = yield* rawRequest("GET", "/openapi.json")
      const gigSchema = doc.body.components.schemas.Gig
      expect(Object.keys(gigSchema.properties)).toEqual(expect.arrayContaining(["deadline", "status", "owner"]))
      expect(gigSchema.required).toEqual(expect.arrayContaining(["deadline", "status", "owner"]))
    }))
})
