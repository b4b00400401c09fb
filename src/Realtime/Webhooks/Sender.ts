import { Config, Duration, Effect } from "effect"
import * as Dns from "node:dns"
import * as Http from "node:http"
import * as Https from "node:https"
import type { LookupFunction } from "node:net"
import { Webhook } from "standardwebhooks"
import { blockedReason, isBlockedAddress, UrlGuard } from "./UrlGuard.js"

export interface Outcome {
  readonly status: number | null
  readonly error: string | null
}

// resolved at connect time and checked again, so a DNS answer that changed since UrlGuard looked (rebinding)
// cannot point the request at a private address
const guardedLookup: LookupFunction = (hostname, options, callback) => {
  Dns.lookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err) return (callback as (e: Error) => void)(err)
    if (addresses.length === 0 || addresses.some((a) => isBlockedAddress(a.address))) {
      return (callback as (e: Error) => void)(new Error(`${hostname} resolves to a private or reserved address`))
    }
    if (options.all) return (callback as (e: null, a: Array<Dns.LookupAddress>) => void)(null, addresses)
    ;(callback as (e: null, a: string, f: number) => void)(null, addresses[0]!.address, addresses[0]!.family)
  })
}

/**
 * One webhook POST: redirects are not followed (a 3xx is a failed attempt), the response body is not read,
 * and the whole exchange is bounded by `timeout` on the Effect Clock.
 */
export const post = (
  url: string,
  headers: Record<string, string>,
  body: string,
  options: { readonly allowPrivate: boolean; readonly timeout: Duration.DurationInput }
): Effect.Effect<Outcome> =>
  Effect.async<Outcome>((resume) => {
    // only the first answer counts (an error after the response is ignored): Effect resumes once
    const finish = (o: Outcome) => resume(Effect.succeed(o))
    if (!URL.canParse(url)) return finish({ status: null, error: "not a valid URL" })
    const target = new URL(url)
    const client = target.protocol === "https:" ? Https : Http
    const req = client.request(target, {
      method: "POST",
      agent: false,
      headers: {
        ...headers,
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "user-agent": "Shoal-Webhooks/1"
      },
      ...(options.allowPrivate ? {} : { lookup: guardedLookup })
    }, (res) => {
      finish({ status: res.statusCode ?? null, error: null })
      res.destroy()
    })
    req.on("error", (e) => finish({ status: null, error: e.message }))
    // nothing is written until the socket is connected and its peer checked: the lookup above judged what DNS
    // answered, this judges the address actually connected to (an IP literal never goes through the lookup)
    req.on("socket", (socket) => {
      const send = () => {
        const peer = socket.remoteAddress
        const reason = options.allowPrivate
          ? undefined
          : peer === undefined
          ? "the connected address is unknown"
          : blockedReason(peer)
        if (reason === undefined) req.end(body)
        else req.destroy(new Error(`refused after connecting: ${reason}`))
      }
      if (socket.connecting) socket.once("connect", send)
      else send()
    })
    return Effect.sync(() => req.destroy())
  }).pipe(
    Effect.timeoutTo({
      duration: options.timeout,
      onTimeout: (): Outcome => ({ status: null, error: `no response within ${Duration.format(options.timeout)}` }),
      onSuccess: (o) => o
    })
  )

/** What a webhook POST came to: `ok` for a 2xx, else `error` says why. */
export interface Result extends Outcome {
  readonly ok: boolean
}

/**
 * Webhooks and relay pushes as they are POSTed: to URLs the guard accepts, each bounded by `WEBHOOK_TIMEOUT`.
 */
export class WebhookSender extends Effect.Service<WebhookSender>()("Webhooks/Sender", {
  effect: Effect.gen(function*() {
    const guard = yield* UrlGuard
    const timeout = yield* Config.duration("WEBHOOK_TIMEOUT").pipe(Config.withDefault(Duration.seconds(10)))

    /** One POST to a URL the guard has accepted. */
    const send = (url: string, headers: Record<string, string>, body: string): Effect.Effect<Result> =>
      Effect.map(post(url, headers, body, { allowPrivate: guard.allowPrivate, timeout }), (outcome) => {
        const ok = outcome.status !== null && outcome.status >= 200 && outcome.status < 300
        return { ok, status: outcome.status, error: outcome.error ?? (ok ? null : `HTTP ${outcome.status}`) }
      })

    /** A webhook as receivers verify it: Standard Webhooks headers, signed with the account's current secret. */
    const signed = (
      url: string,
      event: { readonly id: string; readonly type: string },
      body: string,
      at: number,
      secret: Effect.Effect<string>
    ) =>
      Effect.gen(function*() {
        const verdict = yield* guard.check(url)
        if (!verdict.ok) return { ok: false, status: null, error: `refused: ${verdict.reason}` } satisfies Result
        return yield* send(url, {
          "x-service-event": event.type,
          "webhook-id": event.id,
          "webhook-timestamp": String(Math.floor(at / 1000)),
          "webhook-signature": new Webhook(yield* secret).sign(event.id, new Date(at), body)
        }, body)
      })

    return { timeout, check: guard.check, send, signed } as const
  }),
  dependencies: [UrlGuard.Default]
}) {}
