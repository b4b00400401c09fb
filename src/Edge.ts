import { Layer } from "effect"
import { ConnectionGate } from "./Edge/ConnectionGate.js"
import { PenaltyBox } from "./Edge/PenaltyBox.js"
import { WriteAdmission } from "./Edge/WriteAdmission.js"

/**
 * Edge hardening: what an operator would otherwise put in a proxy in front of Shoal (README.md "Edge hardening"),
 * kept apart from the product's own rules (deadlines, rate limits, frame limits), which hold whatever this says: a
 * per-address connection cap and a penalty box with its tarpit in front of each server (src/Edge/ConnectionGate.ts),
 * and write admission before the router (src/Edge/WriteAdmission.ts). One of each per process, shared by both servers
 * and the event socket; `EDGE_HARDENING=false` turns all of it off (src/Edge/Switch.ts).
 */
export const Edge = Layer.mergeAll(ConnectionGate.Default, PenaltyBox.Default, WriteAdmission.Default)
