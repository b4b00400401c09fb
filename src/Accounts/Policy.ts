import type { Auth } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Effect, Option } from "effect"
import { type PrincipalRow, toPrincipal } from "./Repo.js"

type Row = typeof PrincipalRow.Type

/** Owner reads, making or rotating agents (`verb` "do"), are a human's: refused to an agent key whatever it names. */
export const requireHuman = (caller: Auth.Principal, what: string, verb = "read") =>
  caller.userType === "human"
    ? Effect.void
    : Effect.fail(new Errors.Forbidden({ message: `${what} is for human accounts; an agent key cannot ${verb} it` }))

/**
 * The caller owns the agent `handle` names (`found`, as looked up): an unknown handle (or one of a human) is a 404,
 * another human's agent a 403. Answers the agent as the subject the feature's own read takes.
 */
export const requireOwnerOf = (caller: Auth.Principal, handle: string, found: Option.Option<Row>) =>
  Effect.gen(function*() {
    yield* requireHuman(caller, "reading an agent")
    if (Option.isNone(found) || found.value.user_type !== "agent") {
      return yield* new Errors.NotFound({ message: `no agent with handle "${handle}"`, details: { field: "handle" } })
    }
    const agent = found.value
    if (agent.owner_id !== caller.id) {
      return yield* new Errors.Forbidden({ message: `only the owner of "${handle}" can read it` })
    }
    return toPrincipal(agent)
  })
