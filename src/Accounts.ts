import { SqlClient } from "@effect/sql"
import type { Auth, Ids } from "@shoal/domain"
import { Accounts as Api, Errors } from "@shoal/domain"
import { Clock, Config, Effect, Option } from "effect"
import * as Policy from "./Accounts/Policy.js"
import { AccountsRepo } from "./Accounts/Repo.js"
import { KeyCache } from "./Auth/KeyCache.js"
import { generateKey, hashKey, keyPrefix } from "./Auth/Keys.js"
import * as Revoked from "./Auth/Revoked.js"
import { EventsRepo } from "./Realtime/EventsRepo.js"

const handleTaken = (handle: string) =>
  new Errors.Conflict({ message: `the handle "${handle}" is already taken`, details: { field: "handle" } })

/** An owner's rotations of one agent's key closer together than this are one burst: the first commits, the rest 409. */
const ROTATION_SETTLE_SECONDS = 5

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
        yield* repo.replaceKey(row.value.id, hashKey(apiKey), yield* Clock.currentTimeMillis, keyPrefix(apiKey))
        return { id: row.value.id, apiKey }
      }).pipe(sql.withTransaction, Effect.catchTags({ SqlError: Effect.die, ParseError: Effect.die }))

    const signUp = Effect.fn("Accounts.signUp")(function*(input: Api.NewAccount) {
      if (registration === "closed") {
        return yield* new Errors.Forbidden({ message: "public sign-up is closed on this server (REGISTRATION=closed)" })
      }
      return yield* create(input, "human", null)
    })

    const createAgent = Effect.fn("Accounts.createAgent")(function*(owner: Auth.Principal, input: Api.NewAccount) {
      yield* Policy.requireHuman(owner, "creating agents", "do")
      return yield* create(input, "agent", owner.id)
    })

    const rotationRaced = (whose: string) =>
      new Errors.Conflict({
        message: `another rotation of ${whose} key is in progress or has just replaced it: concurrent rotations ` +
          "hand out one key, and the key that rotation answered is the one that works. To rotate again, retry in " +
          `${ROTATION_SETTLE_SECONDS} seconds`
      })

    /**
     * Replaces the user's key if its live keys are still the ones this request started from (`expected`), else a 409:
     * of concurrent rotations exactly one commits, so every key answered with a 200 works. The user's row is locked
     * first, so the comparison and the swap are one step on a multi-node PostgreSQL too.
     */
    const rotate = (
      userId: Ids.UserId,
      expected: (live: ReadonlyArray<string>) => boolean,
      options: { readonly whose: string; readonly settle: boolean }
    ) =>
      Effect.gen(function*() {
        const apiKey = generateKey()
        const revoked = yield* Effect.gen(function*() {
          yield* repo.lockUser(userId)
          if (!expected(yield* repo.liveKeyHashes(userId))) return yield* rotationRaced(options.whose)
          const now = yield* Clock.currentTimeMillis
          if (options.settle && (yield* repo.rotatedSince(userId, now - ROTATION_SETTLE_SECONDS * 1000))) {
            return yield* rotationRaced(options.whose)
          }
          return yield* repo.replaceKey(userId, hashKey(apiKey), now, keyPrefix(apiKey))
        }).pipe(
          // every node closes the sockets opened with the old key and uncaches it; sent only if this commits
          Effect.tap((hashes) =>
            hashes.length === 0
              ? Effect.void
              : notices.notify(Revoked.KeysChannel, Revoked.encode({ user_id: userId, key_hashes: hashes }))
          ),
          sql.withTransaction,
          Effect.catchTag("SqlError", Effect.die)
        )
        // this node at once, before answering: the old key must not work for the caller's next request
        yield* keys.invalidate(revoked)
        return new Api.KeyRotated({ status: "success", api_key: apiKey })
      })

    const sameKeys = (seen: ReadonlyArray<string>) => (live: ReadonlyArray<string>) =>
      live.length === seen.length && live.every((h, i) => h === seen[i])

    /**
     * The caller's own key: the old one stops working at once. The rotation is of the key presented, so it commits
     * only while that key is still live; without one (the offline CLI), of the keys live when it started.
     */
    const rotateKey = Effect.fn("Accounts.rotateKey")(function*(caller: Auth.Principal) {
      const expected = caller.keyHash !== ""
        ? (live: ReadonlyArray<string>) => live.includes(caller.keyHash)
        : sameKeys(yield* repo.liveKeyHashes(caller.id).pipe(Effect.orDie))
      return yield* rotate(caller.id, expected, { whose: "this", settle: false })
    })

    const rotateAgentKey = Effect.fn("Accounts.rotateAgentKey")(function*(owner: Auth.Principal, handle: string) {
      yield* Policy.requireHuman(owner, "rotating an agent's key", "do")
      const agent = yield* repo.byHandle(handle).pipe(Effect.orDie)
      if (Option.isNone(agent) || agent.value.user_type !== "agent") {
        return yield* new Errors.NotFound({ message: `no agent with handle "${handle}"` })
      }
      if (agent.value.owner_id !== owner.id) {
        return yield* new Errors.Forbidden({ message: `only the owner of "${handle}" can rotate its key` })
      }
      // the owner presents no key of the agent: a rotation that committed just before this read counts too (settle)
      const seen = yield* repo.liveKeyHashes(agent.value.id).pipe(Effect.orDie)
      return yield* rotate(agent.value.id, sameKeys(seen), { whose: `"${handle}"'s`, settle: true })
    })

    /** The caller itself, or (`handle` given) an agent it owns: whose keys are read or named. */
    const keyOwner = (caller: Auth.Principal, handle: string | undefined) =>
      handle === undefined
        ? Effect.succeed(caller)
        : Effect.flatMap(
          Effect.orDie(repo.byHandle(handle)),
          (found) => Policy.requireOwnerOf(caller, handle, found)
        )

    /** The account's keys by name, prefix and times, never the keys. */
    const listKeys = Effect.fn("Accounts.keys")(function*(caller: Auth.Principal, handle?: string) {
      const subject = yield* keyOwner(caller, handle)
      const rows = yield* Effect.orDie(repo.keysOf(subject.id))
      return new Api.Keys({ status: "success", handle: subject.handle, keys: rows.map((r) => new Api.KeyInfo(r)) })
    })

    const renameKey = Effect.fn("Accounts.renameKey")(
      function*(caller: Auth.Principal, handle: string | undefined, id: Api.KeyId, name: string | null) {
        const subject = yield* keyOwner(caller, handle)
        const row = yield* Effect.orDie(repo.renameKey({ user_id: subject.id, id, name }))
        if (Option.isNone(row)) {
          return yield* new Errors.NotFound({
            message: `no key ${id} of @${subject.handle}`,
            details: { field: "key_id" }
          })
        }
        return new Api.KeyRenamed({ status: "success", key: new Api.KeyInfo(row.value) })
      }
    )

    return { signUp, createAgent, rotateKey, rotateAgentKey, listKeys, renameKey } as const
  }),
  dependencies: [AccountsRepo.Default, EventsRepo.Default]
}) {}
