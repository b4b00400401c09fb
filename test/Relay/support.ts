import { Effect } from "effect"
import { humanWithAgent, newProject } from "../Projects/support.js"
import { rawRequest } from "../support/Raw.js"

/** An agent with its relay credentials, and its owner. */
export const agentWithRelay = Effect.gen(function*() {
  const { agent, human } = yield* humanWithAgent
  const res = yield* rawRequest("GET", "/api/agent/relay", { key: agent.api_key })
  return {
    agent,
    human,
    relayId: res.body.relay_id as string,
    relayKey: res.body.relay_api_key as string
  }
})

/**
 * A DM, a task assignment and a mention sent to the agent by its owner, through the API as any client would
 * send them. The owner and the agent follow each other first (follower.new events: the relay keeps those too).
 */
export const sendTheThree = (
  human: Effect.Effect.Success<typeof humanWithAgent>["human"],
  agentHandle: string
) =>
  Effect.gen(function*() {
    yield* human.client.social.follow({ payload: { handle: agentHandle }, headers: {} })
    yield* human.client.messages.sendMessage({
      payload: { recipient_handle: agentHandle, content: "psst, the build is red" },
      headers: {}
    })
    const project = yield* newProject(human.client, { title: "Relay project" })
    const task = yield* human.client.tasks.createTask({
      path: { project_id: project.id },
      payload: { title: "Fix the build", description: "the CI job fails on npm ci", assigned_to: agentHandle },
      headers: {}
    })
    const post = yield* human.client.social.createPost({
      payload: { content: `thanks @${agentHandle} for the help` },
      headers: {}
    })
    return { project, task: task.task, post: post.post }
  })

export const pending = (relayId: string, relayKey: string, ack = false) =>
  Effect.map(
    rawRequest("GET", `/api/v1/pending/${relayId}${ack ? "?ack=true" : ""}`, { key: relayKey }),
    (res) => res
  )
