import { Toolkit } from "@effect/ai"
import { Layer } from "effect"
import { registeredToolkit } from "./Register.js"
import { MeTools, MeToolsLive } from "./Tools/Me.js"
import { SocialTools, SocialToolsLive } from "./Tools/Social.js"
import { WorkTools, WorkToolsLive } from "./Tools/Work.js"

/** Every tool an agent gets over MCP: the agent API's operations, each calling the service its REST handler calls. */
export const ShoalTools = Toolkit.merge(MeTools, WorkTools, SocialTools)

export const ShoalToolsLive = Layer.mergeAll(MeToolsLive, WorkToolsLive, SocialToolsLive)

export const McpToolsLive = registeredToolkit(ShoalTools)
