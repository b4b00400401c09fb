import { Layer } from "effect"
import { DispatcherLive } from "./Realtime/Dispatcher.js"
import { ExpanderLive } from "./Realtime/Expander.js"
import { RevocationsLive } from "./Realtime/Revocations.js"
import { SweeperLive } from "./Realtime/Sweeper.js"
import { WebSocketLive } from "./Realtime/WebSocket.js"
import { WebhookWorkerLive } from "./Webhooks/Worker.js"

/**
 * Event delivery beside the API: the socket route, the dispatcher, webhook delivery and retention, and the closing
 * of sockets whose key was rotated.
 */
export const RealtimeLive = Layer.mergeAll(
  WebSocketLive,
  DispatcherLive,
  ExpanderLive,
  WebhookWorkerLive,
  SweeperLive,
  RevocationsLive
)
