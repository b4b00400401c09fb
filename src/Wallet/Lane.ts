import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Wallet as Api } from "@shoal/domain"
import { Effect, Either, Schema } from "effect"
import { makeKeyCheck } from "../Auth.js"
import { rateLimitHeaders } from "../Auth/RateLimiter.js"
import { consoleCorsOptions } from "../Console/WalletCors.js"
import { answerFailure } from "../Http/ErrorHandling.js"
import { type Lane, plainJsonBody } from "../Http/FastLane.js"
import { Wallet } from "../Wallet.js"
import { AccountActors } from "./AccountActors.js"
import { BalanceChanges } from "./BalanceChanges.js"

export const TRANSFER_PATH = "/api/gems/transfer"

const decodeTransfer = Schema.decodeUnknownEither(Api.Transfer)
const encodeTransferred = Schema.encodeSync(Api.Transferred)

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * The transfer's fast lane (src/Http/FastLane.ts): `POST /api/gems/transfer` without an Idempotency-Key, with a
 * JSON body the request checks pass as it is and the payload schema accepts, from a known key within its limit, is
 * run ahead of the router: the same `Wallet.transfer` in the caller's account actor, tracked for the `/me` cache, as
 * the handler runs it. Anything else (a key, a body the checks or the schema refuse, no key, a key past its limit)
 * goes down the general path, which reads the body the lane kept and decides everything itself. Its answers carry
 * the wallet API's CORS headers, as the general path's do. Once the transfer
 * has started the lane answers whatever happens (an error as the general path's envelope, with the rate-limit
 * headers): handing a started transfer to the general path would run it twice.
 */
export const TransferLane = Effect.gen(function*() {
  const wallet = yield* Wallet
  const actors = yield* AccountActors
  const { tracked } = yield* BalanceChanges
  const check = yield* makeKeyCheck
  // the wallet API's CORS headers (the console's origin), as its middleware adds them down the general path
  const cors = HttpMiddleware.cors(yield* Effect.orDie(consoleCorsOptions))
  const lane: Lane = {
    method: "POST",
    path: TRANSFER_PATH,
    answer: (request) => {
      if (request.headers["idempotency-key"] !== undefined) return Effect.succeed(undefined)
      return Effect.flatMap(plainJsonBody(request), (text) => {
        if (text === undefined) return Effect.succeed(undefined)
        const payload = decodeTransfer(parse(text))
        if (Either.isLeft(payload)) return Effect.succeed(undefined)
        return Effect.flatMap(check(request.headers), (checked) => {
          if (checked._tag !== "Allowed") return Effect.succeed(undefined)
          const headers = rateLimitHeaders(checked.decision)
          return actors.serialize(checked.principal.id, tracked(wallet.transfer(checked.principal, payload.right)))
            .pipe(
              Effect.map((done) => HttpServerResponse.unsafeJson(encodeTransferred(done))),
              Effect.catchAllCause(answerFailure),
              Effect.map((response) => HttpServerResponse.setHeaders(response, headers)),
              cors,
              Effect.provideService(HttpServerRequest.HttpServerRequest, request)
            )
        })
      })
    }
  }
  return lane
})
