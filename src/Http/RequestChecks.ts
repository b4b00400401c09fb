import { HttpServerError, HttpServerRequest } from "@effect/platform"
import { Chunk, Effect, Stream } from "effect"
import { errorResponse } from "./ErrorEnvelope.js"

/**
 * Checks every request makes before any route sees it: the body's media type and size. They live here, in front
 * of every route (the global middleware), so a new endpoint cannot forget them.
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

/**
 * The body as text, at most `max` bytes. Past the limit the rest is read and dropped (up to `drain` more bytes), so
 * the client has finished sending when the 413 goes out and sees the answer, not a reset. A client that goes on
 * past that is cut off.
 */
export const readBody = (request: HttpServerRequest.HttpServerRequest, max: number, drain: number) =>
  Stream.runFoldWhile(
    request.stream,
    { chunks: Chunk.empty<Uint8Array>(), bytes: 0 },
    (s) => s.bytes <= max + drain,
    (s, chunk) => ({
      chunks: s.bytes + chunk.length <= max ? Chunk.append(s.chunks, chunk) : s.chunks,
      bytes: s.bytes + chunk.length
    })
  ).pipe(
    Effect.map((s): Body => {
      if (s.bytes > max) return { _tag: "TooLarge" }
      const all = new Uint8Array(s.bytes)
      let at = 0
      for (const c of s.chunks) {
        all.set(c, at)
        at += c.length
      }
      return { _tag: "Text", text: new TextDecoder().decode(all) }
    })
  )

/**
 * The request as the routes see it once its body has been read here: the same request, with `text` and `json`
 * answering the body already read and, for `application/*+json` or an empty body of another type, a JSON content
 * type (HttpApi decodes by content type and would otherwise hand the route bytes, or wait for a multipart body).
 */
export const withBody = (
  request: HttpServerRequest.HttpServerRequest,
  text: string,
  asJson: boolean
): HttpServerRequest.HttpServerRequest => {
  const json = Effect.try({
    try: () => (text === "" ? null : JSON.parse(text)) as unknown,
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
