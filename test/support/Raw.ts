import { HttpClient, HttpClientRequest } from "@effect/platform"
import { Effect } from "effect"

export interface RawResponse {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  readonly body: any
  /** the body as sent, byte for byte */
  readonly text: string
}

/** A request outside the typed client: malformed bodies, odd headers, unknown paths. */
export const rawRequest = (
  method: "GET" | "POST" | "PATCH" | "PUT" | "DELETE" | "OPTIONS",
  path: string,
  options: { readonly body?: string | Uint8Array; readonly headers?: Record<string, string>; readonly key?: string } =
    {}
) =>
  Effect.gen(function*() {
    const http = yield* HttpClient.HttpClient
    let req = HttpClientRequest.make(method)(path)
    if (options.body !== undefined) {
      req = typeof options.body === "string"
        ? HttpClientRequest.bodyText(req, options.body, "application/json")
        : HttpClientRequest.bodyUint8Array(req, options.body, "application/json")
    }
    req = HttpClientRequest.setHeaders(req, options.headers ?? {})
    if (options.key) req = HttpClientRequest.bearerToken(req, options.key)
    const res = yield* http.execute(req)
    const text = yield* res.text
    let body: unknown = text
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON: the assertion will say so
    }
    return { status: res.status, headers: res.headers, body, text } as RawResponse
  }).pipe(Effect.scoped)

/** Asserts the contract's error envelope and returns its `error`. */
export const expectError = (res: RawResponse, status: number, code: string) => {
  if (res.status !== status || res.body?.status !== "error" || res.body?.error?.code !== code) {
    throw new Error(`expected ${status} ${code}, got ${res.status} ${JSON.stringify(res.body).slice(0, 400)}`)
  }
  if (typeof res.body.error.message !== "string" || res.body.error.message.length === 0) {
    throw new Error("error without a message")
  }
  return res.body.error as { code: string; message: string; details?: unknown }
}
