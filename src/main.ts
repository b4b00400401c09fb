import { NodeRuntime } from "@effect/platform-node"
import { Layer } from "effect"
import * as Database from "./Database/Database.js"
import { HttpServerLive } from "./Http.js"
import { DnsLive } from "./Identity/RecordSourceLive.js"

const MainLive = Layer.mergeAll(HttpServerLive, DnsLive).pipe(Layer.provide(Database.layer))

NodeRuntime.runMain(Layer.launch(MainLive))
