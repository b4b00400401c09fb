import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Effect, Exit } from "effect"
import { errorResponse } from "./ErrorEnvelope.js"

/**
 * Checks every request makes before any route sees it (body media type, streamed size, NUL characters anywhere in
 * the input): here, in front of every route, a new endpoint cannot forget them.
 */

/** `application/json` or any `application/*+json` (merge-patch, problem …), with or without parameters. */
export const isJsonMediaType = (contentType: string): boolean => {
  const type = contentType.split(";")[0]!.trim().toLowerCase()
  return type === "application/json" || /^application\/[a-z0-9.!#$&^_-]+\+json$/.test(type)
}

/** Whether the request says a body follows: a positive Content-Length, or a chunked (or other) transfer coding. */
export const declaresBody = (headers: Readonly<Record<string, string | undefined>>): boolean => {
  const length = headers["content-length"]
  if (length !== undefined) return Number(length) !== 0
  return headers["transfer-encoding"] !== undefined
}

export const unsupportedMediaType = (contentType: string) =>
  errorResponse(
    415,
    "unsupported_media_type",
    `the request body must be JSON (Content-Type: application/json), not ${contentType.slice(0, 100)}`
  )

export type Body =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "TooLarge" }

const utf8 = new TextDecoder()

/**
 * The body as text, at most `max` bytes. Past the limit the rest is read and dropped (up to `drain` more bytes), so
 * the client has finished sending when the 413 goes out and sees it, not a reset; past that it is cut off. A failed
 * read (the client went away) is a `RequestError`, as the platform's stream fails. Read from the Node request's own
 * events: the platform's `request.stream` cost as much as a small POST's handler (bench mcp).
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  max: number,
  drain: number
): Effect.Effect<Body, HttpServerError.RequestError> =>
  Effect.async((resume) => {
    const source = NodeHttpServerRequest.toIncomingMessage(request)
    const failed = (cause: unknown) => Exit.fail(new HttpServerError.RequestError({ request, reason: "Decode", cause }))
    // read by someone else before: nothing left (the stream would answer an empty body too)
    if (source.readableEnded) return resume(Exit.succeed({ _tag: "Text", text: "" }))
    if (source.destroyed) return resume(failed(new Error("the request was closed before its body was read")))
    const chunks: Array<Uint8Array> = []
    let bytes = 0
    const settle = (exit: Exit.Exit<Body, HttpServerError.RequestError>) => {
      off()
      resume(exit)
    }
    const onData = (chunk: Buffer) => {
      bytes += chunk.length
      if (bytes <= max) chunks.push(chunk)
      else if (bytes > max + drain) {
        // the client is cut off, and gets the 413 if it still reads
        source.destroy()
        settle(Exit.succeed({ _tag: "TooLarge" }))
      }
    }
    const onEnd = () => {
      if (bytes > max) return settle(Exit.succeed({ _tag: "TooLarge" }))
      const text = utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes))
      settle(Exit.succeed({ _tag: "Text", text }))
    }
    const onError = (cause: unknown) => settle(failed(cause))
    const onClose = () => {
      if (!source.complete) onError(new Error("the request was closed before its body ended"))
    }
    const listeners = { data: onData, end: onEnd, error: onError, close: onClose }
    const off = () => Object.entries(listeners).forEach(([event, listener]) => source.off(event, listener))
    Object.entries(listeners).forEach(([event, listener]) => source.on(event, listener))
    return Effect.sync(() => {
      off()
      if (!source.readableEnded) source.destroy()
    })
  })

/**
 * Makes the request answer the body read here, as the routes see it: `text` and `json` answer the body already read
 * and, for `application/*+json` or an empty body of another type, the content type is JSON (HttpApi decodes by
 * content type and would otherwise hand the route bytes, or wait for a multipart body). An empty body is read as
 * `{}`, the one rule for empty bodies: a payload whose fields are all optional takes it, one with required fields
 * says which are missing (`title is required`) rather than that `null` is not an object.
 *
 * The request itself gets these as its own properties (they shadow the platform's getters of the same public names)
 * rather than being wrapped: a wrapper (`Object.create(request)`) had a prototype of its own per request, so every
 * read of `headers` or `url` after it met a new hidden class, and it had to be provided to the route anew (a
 * context copy and ~15 fiber steps). Heartbeat bench, the two side by side: 213 vs 265 µs of CPU a heartbeat.
 */
export const withBody = (request: HttpServerRequest.HttpServerRequest, text: string, asJson: boolean): void => {
  const json = Effect.try({
    try: () => (text === "" ? {} : JSON.parse(text)) as unknown,
    catch: (cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  })
  const own = (name: string, value: unknown) =>
    Object.defineProperty(request, name, { value, writable: true, enumerable: true, configurable: true })
  own("text", Effect.succeed(text))
  own("json", json)
  if (asJson) own("headers", { ...request.headers, "content-type": "application/json" })
}

export interface NulAt {
  readonly field: string
  readonly message: string
}

const nulMessage = "must not contain NUL characters (\\u0000)"
const named = (path: ReadonlyArray<PropertyKey>) => path.map((p) => String(p).replaceAll("\u0000", "\\u0000")).join(".")

/**
 * The fields (keys or string values) of a JSON body where `bad` holds, at most 20. Only an escape matching `escape`
 * can put such a character there (the body is decoded from UTF-8, and JSON refuses raw control characters), so the
 * body is parsed only when its text has one.
 */
const fieldsInJson = (text: string, escape: RegExp, bad: (s: string) => boolean, message: string): Array<NulAt> => {
  const found: Array<NulAt> = []
  const walk = (v: unknown, path: Array<PropertyKey>) => {
    if (found.length >= 20) return
    if (typeof v === "string") {
      if (bad(v)) found.push({ field: named(path), message })
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]))
    } else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (bad(k)) found.push({ field: named([...path, k]), message: "a key " + message })
        else walk(x, [...path, k])
      }
    }
  }
  if (!escape.test(text)) return []
  try {
    walk(JSON.parse(text), [])
  } catch {
    return [] // not JSON: decoding says so
  }
  return found
}

export const nulFieldsInJson = (text: string): Array<NulAt> =>
  fieldsInJson(text, /\\u0000/, (s) => s.includes("\u0000"), nulMessage)

// Node 20 has it; the ES2022 lib this project compiles against does not declare it
const isWellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()

/** Lone surrogates: stored, they would come back as U+FFFD, so the answer would differ from the record. */
export const surrogateFieldsInJson = (text: string): Array<NulAt> =>
  fieldsInJson(
    text,
    /\\u[dD][89a-fA-F]/,
    (s) => !isWellFormed(s),
    "must not contain a lone UTF-16 surrogate (\\ud800–\\udfff without its pair)"
  )

/** NUL characters in the URL: the path (`field` "path") and each query parameter by name. */
export const nulFieldsInUrl = (url: string): Array<NulAt> => {
  if (!url.includes("%00") && !url.includes("\u0000")) return []
  const q = url.indexOf("?")
  const path = q < 0 ? url : url.slice(0, q)
  const found: Array<NulAt> = []
  // %00 decodes to NUL wherever it is, even in a path another escape makes malformed
  if (/%00/.test(path)) found.push({ field: "path", message: nulMessage })
  if (q >= 0) {
    for (const [k, v] of new URLSearchParams(url.slice(q + 1))) {
      if (k.includes("\u0000") || v.includes("\u0000")) found.push({ field: named([k]), message: nulMessage })
    }
  }
  return found
}

/**
 * PostgreSQL text cannot hold NUL, nor a lone surrogate faithfully: refused here, for every string input, naming
 * where it was, with the details every 400 has (`ErrorDetails`).
 */
export const nulResponse = (found: ReadonlyArray<NulAt>) =>
  errorResponse(
    400,
    "invalid_request",
    `${found[0]!.field.length > 0 ? found[0]!.field + " " : "the request body "}${found[0]!.message}`,
    { field: found[0]!.field, issues: found.map((f) => ({ field: f.field, message: f.message })) }
  )
