import { describe, expect, it } from "@effect/vitest"
import type { Ids } from "@shoal/domain"
import { Effect } from "effect"
import * as Policy from "../../src/Messages/Policy.js"
import { call, mcp, ok } from "../Mcp/support.js"
import { createAgent, signUp, uniqueHandle } from "../support/TestApp.js"
import { describeWallet } from "../Wallet/support.js"
import { type Account, humanWithAgent, newProject } from "./support.js"

type Sender = { readonly client: Account["client"] }

const send = (from: Sender, handle: string, content: string) =>
  Effect.map(
    from.client.messages.sendMessage({ payload: { recipient_handle: handle, content }, headers: {} }),
    (r) => r.message.state
  )

const squadWith = (owner: Sender, handle: string) =>
  Effect.gen(function*() {
    const { team } = yield* owner.client.teams.createTeam({ payload: { name: "Crew" }, headers: {} })
    yield* owner.client.teams.addTeamMember({ path: { team_id: team.id }, payload: { handle } })
    return team
  })

const memberHandles = (c: Account["client"], project_id: Ids.ProjectId) =>
  Effect.map(c.projects.listMembers({ path: { project_id } }), (r) => r.members.map((m) => m.handle))

describe("Messages/Policy", () => {
  const none: Policy.Connection = {
    recipientFollowsSender: false,
    oneHumanOwnsBoth: false,
    recipientWroteBefore: false,
    threadApproved: false,
    sharesProjectRecipientJoined: false,
    sharesSquadRecipientJoined: false
  }
  it("deliversAtOnce: any one tie is enough; none makes a message request", () => {
    expect(Policy.deliversAtOnce(none)).toBe(false)
    for (const tie of Object.keys(none) as Array<keyof Policy.Connection>) {
      expect(Policy.deliversAtOnce({ ...none, [tie]: true })).toBe(true)
    }
  })
  it("joinsBySelf: a membership is the member's side's doing when the member or its owner makes it", () => {
    const [me, owner, stranger] = ["u1", "u2", "u3"] as Array<Ids.UserId>
    expect(Policy.joinsBySelf(me!, { id: me!, owner_id: owner! })).toBe(true)
    expect(Policy.joinsBySelf(owner!, { id: me!, owner_id: owner! })).toBe(true)
    expect(Policy.joinsBySelf(stranger!, { id: me!, owner_id: owner! })).toBe(false)
    expect(Policy.joinsBySelf(stranger!, { id: me!, owner_id: null })).toBe(false)
  })
})

describeWallet()("DM consent: a membership a stranger makes alone is not a connection", (it) => {
  it.effect("a stranger adding the recipient to its project or squad, or assigning it a task: the DM still waits", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const stranger = yield* signUp()
      expect(yield* send(stranger, agent.agent.handle, "hello?")).toBe("pending_approval")

      // memberships still happen at once, as the specification says
      const project = yield* newProject(stranger.client)
      yield* stranger.client.projects.addParticipant({
        path: { project_id: project.id },
        payload: { handle: agent.agent.handle }
      })
      expect(yield* memberHandles(stranger.client, project.id)).toContain(agent.agent.handle)
      expect(yield* send(stranger, agent.agent.handle, "we share a project now")).toBe("pending_approval")

      const team = yield* squadWith(stranger, agent.agent.handle)
      const squad = yield* stranger.client.teams.getTeam({ path: { team_id: team.id } })
      expect(squad.team.members?.map((m) => m.handle)).toContain(agent.agent.handle)
      expect(yield* send(stranger, agent.agent.handle, "and a squad")).toBe("pending_approval")

      const other = yield* newProject(stranger.client)
      yield* stranger.client.tasks.createTask({
        path: { project_id: other.id },
        payload: { title: "yours", assigned_to: agent.agent.handle },
        headers: {}
      })
      expect(yield* memberHandles(stranger.client, other.id)).toContain(agent.agent.handle)
      expect(yield* send(stranger, agent.agent.handle, "and a task")).toBe("pending_approval")

      // the same towards a human recipient, added to the stranger's project
      yield* stranger.client.projects.addParticipant({
        path: { project_id: project.id },
        payload: { handle: human.user.handle }
      })
      expect(yield* send(stranger, human.user.handle, "hi human")).toBe("pending_approval")

      // nothing reached the agent; its owner decides every one of them
      expect((yield* agent.client.messages.listMessages({ urlParams: {} })).messages).toEqual([])
      const requests = (yield* human.client.messages.listMessageRequests()).requests
      expect(requests.map((r) => [r.recipient_handle, r.content])).toEqual([
        [agent.agent.handle, "hello?"],
        [agent.agent.handle, "we share a project now"],
        [agent.agent.handle, "and a squad"],
        [agent.agent.handle, "and a task"],
        [human.user.handle, "hi human"]
      ])
    }))

  it.scoped("the same through POST /mcp: create_project, create_task assigning the recipient, send_message waits", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const strangerHuman = yield* signUp()
      const stranger = yield* createAgent(strangerHuman.api_key)
      const client = yield* mcp(stranger.api_key)
      const first = yield* ok(client, "send_message", { recipient_handle: agent.agent.handle, content: "mcp hi" })
      expect(first.message.state).toBe("pending_approval")
      const { project } = yield* ok(client, "create_project", { title: `P ${uniqueHandle("t")}` })
      yield* ok(client, "create_task", { project_id: project.id, title: "yours", assigned_to: agent.agent.handle })
      expect(yield* memberHandles(stranger.client, project.id)).toContain(agent.agent.handle)
      const again = yield* ok(client, "send_message", { recipient_handle: agent.agent.handle, content: "task mate" })
      expect(again.message.state).toBe("pending_approval")
      // added over REST, written to over MCP: still waits
      yield* stranger.client.projects.addParticipant({
        path: { project_id: project.id },
        payload: { handle: human.user.handle }
      })
      const toHuman = yield* call(client, "send_message", { recipient_handle: human.user.handle, content: "hi" })
      expect(toHuman.isError).toBeFalsy()
      expect(toHuman.json.message.state).toBe("pending_approval")
      expect((yield* agent.client.messages.listMessages({ urlParams: {} })).messages).toEqual([])
      expect((yield* human.client.messages.listMessageRequests()).requests.map((r) => r.content)).toEqual([
        "mcp hi",
        "task mate",
        "hi"
      ])
    }))

  it.effect("legitimate ties still deliver at once: the recipient's side made the membership, or another tie", () =>
    Effect.gen(function*() {
      const { agent, human } = yield* humanWithAgent
      const colleague = yield* signUp()

      // the recipient's owner adds it to the owner's own project: a colleague there (added by the owner) reaches it
      const owned = yield* newProject(human.client)
      for (const handle of [agent.agent.handle, colleague.user.handle]) {
        yield* human.client.projects.addParticipant({ path: { project_id: owned.id }, payload: { handle } })
      }
      expect(yield* send(colleague, agent.agent.handle, "via the owner's project")).toBe("delivered")

      // a project the recipient created: whoever it added reaches it
      const creator = yield* signUp()
      const mine = yield* newProject(creator.client)
      const guest = yield* signUp()
      yield* creator.client.projects.addParticipant({
        path: { project_id: mine.id },
        payload: { handle: guest.user.handle }
      })
      expect(yield* send(guest, creator.user.handle, "thanks for the invite")).toBe("delivered")

      // a squad the recipient's owner made with the recipient in it
      const squadmate = yield* signUp()
      const team = yield* squadWith(human, agent.agent.handle)
      yield* human.client.teams.addTeamMember({
        path: { team_id: team.id },
        payload: { handle: squadmate.user.handle }
      })
      const fresh = yield* createAgent(human.api_key)
      yield* human.client.teams.addTeamMember({ path: { team_id: team.id }, payload: { handle: fresh.agent.handle } })
      expect(yield* send(squadmate, fresh.agent.handle, "squad hello")).toBe("delivered")

      // a stranger's project the recipient then takes part in: it assigns itself a task there
      const stranger = yield* signUp()
      const theirs = yield* newProject(stranger.client)
      yield* stranger.client.projects.addParticipant({
        path: { project_id: theirs.id },
        payload: { handle: creator.user.handle }
      })
      expect(yield* send(stranger, creator.user.handle, "before")).toBe("pending_approval")
      yield* creator.client.tasks.createTask({
        path: { project_id: theirs.id },
        payload: { title: "I'll take this", assigned_to: "me" },
        headers: {}
      })
      expect(yield* send(stranger, creator.user.handle, "after")).toBe("delivered")

      // a stranger's membership: a follow, or a reply, still connects
      const follower = yield* signUp()
      const pusher = yield* signUp()
      const pushed = yield* newProject(pusher.client)
      yield* pusher.client.projects.addParticipant({
        path: { project_id: pushed.id },
        payload: { handle: follower.user.handle }
      })
      expect(yield* send(pusher, follower.user.handle, "1")).toBe("pending_approval")
      yield* follower.client.social.follow({ payload: { handle: pusher.user.handle }, headers: {} })
      expect(yield* send(pusher, follower.user.handle, "2")).toBe("delivered")
      const replier = yield* signUp()
      yield* pusher.client.projects.addParticipant({
        path: { project_id: pushed.id },
        payload: { handle: replier.user.handle }
      })
      expect(yield* send(pusher, replier.user.handle, "3")).toBe("pending_approval")
      expect(yield* send(replier, pusher.user.handle, "a reply")).toBe("delivered")
      expect(yield* send(pusher, replier.user.handle, "4")).toBe("delivered")

      // one human owning both, and an approved thread
      const sibling = yield* createAgent(human.api_key)
      expect(yield* send(sibling, agent.agent.handle, "sibling")).toBe("delivered")
      const asker = yield* signUp()
      yield* asker.client.projects.addParticipant({
        path: { project_id: (yield* newProject(asker.client)).id },
        payload: { handle: agent.agent.handle }
      })
      expect(yield* send(asker, agent.agent.handle, "may I?")).toBe("pending_approval")
      const request = (yield* human.client.messages.listMessageRequests()).requests.find((r) => r.content === "may I?")!
      yield* human.client.messages.approveMessageRequest({ path: { request_id: request.id } })
      expect(yield* send(asker, agent.agent.handle, "thanks")).toBe("delivered")
    }))

  it.effect("a gig the recipient applied for and was accepted to connects it to the project's owner", () =>
    Effect.gen(function*() {
      const owner = yield* signUp()
      const project = yield* newProject(owner.client, { visibility: "public" })
      const { task } = yield* owner.client.tasks.createTask({
        path: { project_id: project.id },
        payload: { title: "gig", gem_bounty: 5 },
        headers: {}
      })
      const worker = yield* signUp()
      expect(yield* send(owner, worker.user.handle, "want a job?")).toBe("pending_approval")
      const applied = yield* worker.client.gigs.applyGig({ path: { task_id: task.id }, payload: {}, headers: {} })
      yield* owner.client.gigs.acceptApplication({ path: { task_id: task.id, application_id: applied.application.id } })
      expect(yield* send(owner, worker.user.handle, "welcome aboard")).toBe("delivered")
    }))
})
