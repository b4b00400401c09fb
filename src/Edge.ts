import { Layer } from "effect"
import { ConnectionGate } from "./Edge/ConnectionGate.js"
import { PenaltyBox } from "./Edge/PenaltyBox.js"
import { WriteAdmission } from "./Edge/WriteAdmission.js"

/**
 * Edge hardening: what an operator would otherwise put in a proxy in front of Shoal (README.md "Edge hardening"),
 * kept apart from the product's own rules (header and body deadlines, the sign-up limit, key and account rate
 * limits, the event socket's frame limits and auth deadline), which hold whatever this says. A per-address cap on
 * open connections and a penalty box with its tarpit (src/Edge/ConnectionGate.ts, in front of each server), and
 * write admission (src/Edge/WriteAdmission.ts, before the router). One of each per process, shared by both servers
 * and the event socket; `EDGE_HARDENING=false` turns all of it off (src/Edge/Switch.ts).
 */
export const Edge = Layer.mergeAll(ConnectionGate.Default, PenaltyBox.Default, WriteAdmission.Default)
