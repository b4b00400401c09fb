import { Layer } from "effect"
import { DispatcherLive } from "./Realtime/Dispatcher.js"
import { ExpanderLive } from "./Realtime/Expander.js"
import { SweeperLive } from "./Realtime/Sweeper.js"
import { WebSocketLive } from "./Realtime/WebSocket.js"
import { WebhookWorkerLive } from "./Webhooks/Worker.js"

/** Event delivery beside the API: the socket route, the dispatcher, webhook delivery and retention. */
export const RealtimeLive = Layer.mergeAll(WebSocketLive, DispatcherLive, ExpanderLive, WebhookWorkerLive, SweeperLive)
