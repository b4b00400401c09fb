import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Chunk, Effect, Exit, Stream } from "effect"
import { IncomingMessage } from "node:http"
import { errorResponse } from "./ErrorEnvelope.js"

/**
 * Checks every request makes before any route sees it: the body's media type, its size when it is streamed,
 * and NUL characters anywhere in the input. They live here, in front of every route, so a new endpoint cannot
 * forget them.
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

const decode = (chunks: ReadonlyArray<Uint8Array>, bytes: number): Body => ({
  _tag: "Text",
  text: utf8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, bytes))
})

/**
 * The body as text, at most `max` bytes. Past the limit the rest is read and dropped (up to `drain` more bytes), so
 * the client has finished sending when the 413 goes out and sees the answer, not a reset. A client that goes on
 * past that is cut off. A failed read (the client went away) is a `RequestError`, as the platform's stream fails.
 *
 * Read from the Node request's own events: the platform's `request.stream` (a Stream over the readable, its channel,
 * latch and finalizer, then destroying the request) cost as much as a small POST's handler (bench mcp).
 */
export const readBody = (
  request: HttpServerRequest.HttpServerRequest,
  max: number,
  drain: number
): Effect.Effect<Body, HttpServerError.RequestError> => {
  const source = (request as { readonly source?: unknown }).source
  if (!(source instanceof IncomingMessage)) return readBodyStream(request, max, drain)
  return Effect.async<Body, HttpServerError.RequestError>((resume) => {
    const cancel = readNodeBody(source, max, drain, (body) => {
      resume(
        body._tag === "Failed"
          ? Exit.fail(new HttpServerError.RequestError({ request, reason: "Decode", cause: body.cause }))
          : Exit.succeed(body)
      )
    })
    return cancel === undefined ? undefined : Effect.sync(cancel)
  })
}

/**
 * `readBody`'s read on the Node request itself: `done` is called once, with the body or why it could not be read.
 * What it returns stops the read (the request is destroyed unless it ended), `undefined` when `done` was called at
 * once.
 */
const readNodeBody = (
  source: IncomingMessage,
  max: number,
  drain: number,
  done: (body: Body | { readonly _tag: "Failed"; readonly cause: unknown }) => void
): (() => void) | undefined => {
  const chunks: Array<Uint8Array> = []
  let bytes = 0
  const settle = (body: Body | { readonly _tag: "Failed"; readonly cause: unknown }) => {
    off()
    done(body)
  }
  const onData = (chunk: Buffer) => {
    bytes += chunk.length
    if (bytes <= max) chunks.push(chunk)
    else if (bytes > max + drain) {
      // as the stream's finalizer did: the client is cut off, and gets the 413 if it still reads
      source.destroy()
      settle({ _tag: "TooLarge" })
    }
  }
  const onEnd = () => settle(bytes > max ? { _tag: "TooLarge" } : decode(chunks, bytes))
  const onError = (cause: unknown) => settle({ _tag: "Failed", cause })
  const onClose = () => {
    if (!source.complete) onError(new Error("the request was closed before its body ended"))
  }
  const off = () => {
    source.off("data", onData)
    source.off("end", onEnd)
    source.off("error", onError)
    source.off("close", onClose)
  }
  if (source.readableEnded) {
    // read by someone else before: nothing left (the stream would answer an empty body too)
    done({ _tag: "Text", text: "" })
    return undefined
  }
  if (source.destroyed) {
    done({ _tag: "Failed", cause: new Error("the request was closed before its body was read") })
    return undefined
  }
  source.on("data", onData)
  source.on("end", onEnd)
  source.on("error", onError)
  source.on("close", onClose)
  return () => {
    off()
    if (!source.readableEnded) source.destroy()
  }
}

/** `readBody` through the platform's stream, for a request that is not a Node request. */
const readBodyStream = (request: HttpServerRequest.HttpServerRequest, max: number, drain: number) =>
  Stream.runFoldWhile(
    request.stream,
    { chunks: Chunk.empty<Uint8Array>(), bytes: 0 },
    (s) => s.bytes <= max + drain,
    (s, chunk) => ({
      chunks: s.bytes + chunk.length <= max ? Chunk.append(s.chunks, chunk) : s.chunks,
      bytes: s.bytes + chunk.length
    })
  ).pipe(
    Effect.map((s): Body => (s.bytes > max ? { _tag: "TooLarge" } : decode(Chunk.toReadonlyArray(s.chunks), s.bytes)))
  )

/**
 * The request as the routes see it once its body has been read here: the same request, with `text` and `json`
 * answering the body already read and, for `application/*+json` or an empty body of another type, a JSON content
 * type (HttpApi decodes by content type and would otherwise hand the route bytes, or wait for a multipart body).
 * An empty body is read as `{}`, the one rule for empty bodies: a payload whose fields are all optional takes it,
 * one with required fields says which are missing (`title is required`) rather than that `null` is not an object.
 */
export const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  text: string,
  asJson: boolean
): HttpServerRequest.HttpServerRequest => {
  const json = Effect.try({
    try: () => (text === "" ? {} : JSON.parse(text)) as unknown,
    catch: (cause) => new HttpServerError.RequestError({ request, reason: "Decode", cause })
  })
  const overrides: PropertyDescriptorMap = {
    text: { value: Effect.succeed(text) },
    json: { value: json }
  }
  if (asJson) overrides.headers = { value: { ...request.headers, "content-type": "application/json" } }
  // the node request's other members (url, method, response, upgrade …) are its own: delegate to it
  return Object.create(request, overrides)
}

export interface NulAt {
  readonly field: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

const nulMessage = "must not contain NUL characters (\\u0000)"
const surrogateMessage = "must not contain a lone UTF-16 surrogate (\\ud800–\\udfff without its pair)"
const named = (path: ReadonlyArray<PropertyKey>) => path.map((p) => String(p).replaceAll("\u0000", "\\u0000")).join(".")

/** The fields (keys or string values) of a parsed JSON value where `bad` holds, at most `limit`. */
const fieldsWhere = (value: unknown, bad: (s: string) => boolean, message: string, limit: number): Array<NulAt> => {
  const found: Array<NulAt> = []
  const walk = (v: unknown, path: Array<PropertyKey>) => {
    if (found.length >= limit) return
    if (typeof v === "string") {
      if (bad(v)) found.push({ field: named(path), path: [...path], message })
    } else if (Array.isArray(v)) {
      v.forEach((x, i) => walk(x, [...path, i]))
    } else if (typeof v === "object" && v !== null) {
      for (const [k, x] of Object.entries(v)) {
        if (bad(k)) {
          found.push({ field: named([...path, k]), path: [...path, k], message: "a key " + message })
        } else walk(x, [...path, k])
      }
    }
  }
  walk(value, [])
  return found
}

/** The fields (keys or string values) of a parsed JSON value holding a NUL character, at most `limit`. */
export const nulFields = (value: unknown, limit = 20): Array<NulAt> =>
  fieldsWhere(value, (s) => s.includes("\u0000"), nulMessage, limit)

// Node 20 has it; the ES2022 lib this project compiles against does not declare it
const isWellFormed = (s: string) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()

/**
 * Lone surrogates in a JSON body's text: only a `\uD800`–`\uDFFF` escape can put one there (the body is decoded
 * from UTF-8). Stored, they would come back as U+FFFD, so the answer would differ from the record: refused instead.
 */
export const surrogateFieldsInJson = (text: string): Array<NulAt> => {
  if (!/\\u[dD][89a-fA-F]/.test(text)) return []
  try {
    return fieldsWhere(JSON.parse(text), (s) => !isWellFormed(s), surrogateMessage, 20)
  } catch {
    return [] // not JSON: decoding says so
  }
}

/** NUL characters in a JSON body's text: only an escape can put one there (JSON refuses raw control characters). */
export const nulFieldsInJson = (text: string): Array<NulAt> => {
  if (!/\\u0000/.test(text)) return []
  try {
    return nulFields(JSON.parse(text))
  } catch {
    return [] // not JSON: decoding says so
  }
}

/** NUL characters in the URL: the path (`field` "path") and each query parameter by name. */
export const nulFieldsInUrl = (url: string): Array<NulAt> => {
  if (!url.includes("%00") && !url.includes("\u0000")) return []
  const q = url.indexOf("?")
  const path = q < 0 ? url : url.slice(0, q)
  const found: Array<NulAt> = []
  // %00 decodes to NUL wherever it is, even in a path another escape makes malformed
  if (/%00/.test(path)) found.push({ field: "path", path: ["path"], message: nulMessage })
  if (q >= 0) {
    for (const [k, v] of new URLSearchParams(url.slice(q + 1))) {
      if (k.includes("\u0000") || v.includes("\u0000")) {
        found.push({ field: named([k]), path: [k], message: nulMessage })
      }
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
