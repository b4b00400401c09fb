import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import { Schema } from "effect"

/**
 * Every error a client sees is `{"status":"error","error":{code,message,details}}`, whatever the route. Each class has a wire schema that maps that envelope to the class and carries the HTTP status, so
 * the server encodes it and the typed client decodes it back (`catchTag` works on both sides).
 */
const fields = { message: Schema.String, details: Schema.optional(Schema.Unknown) }

const envelope = <C extends string>(code: C) =>
  Schema.Struct({
    status: Schema.Literal("error"),
    error: Schema.Struct({
      code: Schema.Literal(code),
      message: Schema.String,
      details: Schema.optional(
        Schema.Unknown.annotations({ description: "more about the error, e.g. for a 400 the fields that failed" })
      )
    })
  })

type ErrorClass<A> = Schema.Schema<A, any> & (new(args: { message: string; details?: unknown }) => A)

const wire = <A extends { readonly message: string; readonly details?: unknown }, C extends string>(
  cls: ErrorClass<A>,
  code: C,
  status: number
) =>
  Schema.transform(envelope(code), Schema.typeSchema(cls), {
    strict: false,
    decode: (e) => new cls({ message: e.error.message, details: e.error.details }),
    encode: (a) => ({ status: "error" as const, error: { code, message: a.message, details: a.details } })
  }).annotations({ ...HttpApiSchema.annotations({ status }), identifier: `${code}_error` })

export class InvalidRequest extends Schema.TaggedError<InvalidRequest>()("InvalidRequest", fields) {}
export class Unauthorized extends Schema.TaggedError<Unauthorized>()("Unauthorized", fields) {}
export class Forbidden extends Schema.TaggedError<Forbidden>()("Forbidden", fields) {}
export class NotFound extends Schema.TaggedError<NotFound>()("NotFound", fields) {}
export class Conflict extends Schema.TaggedError<Conflict>()("Conflict", fields) {}
export class RequestTimeout extends Schema.TaggedError<RequestTimeout>()("RequestTimeout", fields) {}
export class PayloadTooLarge extends Schema.TaggedError<PayloadTooLarge>()("PayloadTooLarge", fields) {}
export class UnsupportedMediaType extends Schema.TaggedError<UnsupportedMediaType>()("UnsupportedMediaType", fields) {}
export class Unprocessable extends Schema.TaggedError<Unprocessable>()("Unprocessable", fields) {}
export class RateLimited extends Schema.TaggedError<RateLimited>()("RateLimited", fields) {}
export class HeadersTooLarge extends Schema.TaggedError<HeadersTooLarge>()("HeadersTooLarge", fields) {}
export class InternalError extends Schema.TaggedError<InternalError>()("InternalError", fields) {}
export class Unavailable extends Schema.TaggedError<Unavailable>()("Unavailable", fields) {}

export const InvalidRequestWire = wire(InvalidRequest, "invalid_request", 400)
export const UnauthorizedWire = wire(Unauthorized, "unauthorized", 401)
export const ForbiddenWire = wire(Forbidden, "forbidden", 403)
export const NotFoundWire = wire(NotFound, "not_found", 404)
export const ConflictWire = wire(Conflict, "conflict", 409)
export const RequestTimeoutWire = wire(RequestTimeout, "request_timeout", 408)
export const PayloadTooLargeWire = wire(PayloadTooLarge, "payload_too_large", 413)
export const UnsupportedMediaTypeWire = wire(UnsupportedMediaType, "unsupported_media_type", 415)
export const UnprocessableWire = wire(Unprocessable, "unprocessable", 422)
export const RateLimitedWire = wire(RateLimited, "rate_limited", 429)
export const HeadersTooLargeWire = wire(HeadersTooLarge, "headers_too_large", 431)
export const InternalErrorWire = wire(InternalError, "internal_error", 500)
export const UnavailableWire = wire(Unavailable, "unavailable", 503)

export type ApiError =
  | InvalidRequest
  | Unauthorized
  | Forbidden
  | NotFound
  | Conflict
  | RequestTimeout
  | PayloadTooLarge
  | UnsupportedMediaType
  | Unprocessable
  | RateLimited
  | HeadersTooLarge
  | InternalError
  | Unavailable

/** The code and status of each error, for the server's catch-all that writes errors outside HttpApi's encoder. */
export const errorCodes = {
  InvalidRequest: ["invalid_request", 400],
  Unauthorized: ["unauthorized", 401],
  Forbidden: ["forbidden", 403],
  NotFound: ["not_found", 404],
  Conflict: ["conflict", 409],
  RequestTimeout: ["request_timeout", 408],
  PayloadTooLarge: ["payload_too_large", 413],
  UnsupportedMediaType: ["unsupported_media_type", 415],
  Unprocessable: ["unprocessable", 422],
  RateLimited: ["rate_limited", 429],
  HeadersTooLarge: ["headers_too_large", 431],
  InternalError: ["internal_error", 500],
  Unavailable: ["unavailable", 503]
} as const satisfies Record<ApiError["_tag"], readonly [string, number]>
