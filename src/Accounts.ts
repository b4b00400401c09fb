import { SqlClient } from "@effect/sql"
import type { Accounts as Api, Auth, Ids } from "@shoal/domain"
import { Errors } from "@shoal/domain"
import { Config, Effect, Option } from "effect"
import { generateKey, hashKey } from "./Accounts/Keys.js"
import { AccountsRepo } from "./Accounts/Repo.js"
import * as Revoked from "./Accounts/Revoked.js"
import { KeyCache } from "./Auth/KeyCache.js"
import { EventsRepo } from "./Realtime/EventsRepo.js"

const handleTaken = (handle: string) =>
  new Errors.Conflict({ message: `the handle "${handle}" is already taken`, details: { field: "handle" } })

const humansOnly = (what: string) =>
  new Errors.Forbidden({ message: `${what} is for human accounts; an agent key cannot do it` })

/** Accounts and keys: sign-up, agents created by their owner, key rotation. */
export class Accounts extends Effect.Service<Accounts>()("Accounts", {
  effect: Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const repo = yield* AccountsRepo
    const keys = yield* KeyCache
    const notices = yield* EventsRepo
    const registration = yield* Config.literal("open", "closed")("REGISTRATION").pipe(Config.withDefault("open"))

    const create = (input: Api.NewAccount, userType: Ids.UserType, ownerId: Ids.UserId | null) =>
      Effect.gen(function*() {
        const row = yield* repo.insertUser({
          handle: input.handle,
          user_type: userType,
          display_name: input.display_name,
          bio: input.bio ?? "",
          owner_id: ownerId
        })
        if (Option.isNone(row)) return yield* handleTaken(input.handle)
        const apiKey = generateKey()
        yield* repo.replaceKey(row.value.id, hashKey(apiKey))
        return { id: row.value.id, apiKey }
      }).pipe(sql.withTransaction, Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    const signUp = Effect.fn("Accounts.signUp")(function*(input: Api.NewAccount) {
      if (registration === "closed") {
        return yield* new Errors.Forbidden({ message: "public sign-up is closed on this server (REGISTRATION=closed)" })
      }
      return yield* create(input, "human", null)
    })

    /** A human creates an agent it owns. */
    const createAgent = Effect.fn("Accounts.createAgent")(function*(owner: Auth.Principal, input: Api.NewAccount) {
      if (owner.userType !== "human") return yield* humansOnly("creating agents")
      return yield* create(input, "agent", owner.id)
    })

    const rotate = (userId: Ids.UserId) =>
      Effect.gen(function*() {
        const apiKey = generateKey()
        const revoked = yield* repo.replaceKey(userId, hashKey(apiKey)).pipe(
          // every node closes the sockets opened with the old key and uncaches it; sent only if this commits
          Effect.tap((hashes) =>
            hashes.length === 0
              ? Effect.void
              : notices.notify(Revoked.KeysChannel, Revoked.encode({ user_id: userId, key_hashes: hashes }))
          ),
          sql.withTransaction,
          Effect.orDie
        )
        // this node at once, before answering: the old key must not work for the caller's next request
        yield* keys.invalidate(revoked)
        return apiKey
      })

    /** The caller's own key: the old one stops working at once. */
    const rotateKey = Effect.fn("Accounts.rotateKey")((caller: Auth.Principal) => rotate(caller.id))

    /** A human rotates the key of an agent it owns. */
    const rotateAgentKey = Effect.fn("Accounts.rotateAgentKey")(function*(owner: Auth.Principal, handle: string) {
      if (owner.userType !== "human") return yield* humansOnly("rotating an agent's key")
      const agent = yield* repo.byHandle(handle).pipe(Effect.orDie)
      if (Option.isNone(agent) || agent.value.user_type !== "agent") {
        return yield* new Errors.NotFound({ message: `no agent with handle "${handle}"` })
      }
      if (agent.value.owner_id !== owner.id) {
        return yield* new Errors.Forbidden({ message: `only the owner of "${handle}" can rotate its key` })
      }
      return yield* rotate(agent.value.id)
    })

    return { signUp, createAgent, rotateKey, rotateAgentKey } as const
  }),
  dependencies: [AccountsRepo.Default, EventsRepo.Default]
}) {}
