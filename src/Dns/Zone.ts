/** Where a query name falls relative to the served zone. */
export type Place =
  | { readonly _tag: "Outside" }
  | { readonly _tag: "Apex" }
  | { readonly _tag: "Nameserver" }
  | { readonly _tag: "Handle"; readonly handle: string }
  | { readonly _tag: "Proof"; readonly handle: string }
  | { readonly _tag: "Missing" }
  /**
   * A name outside the zone in what may be a user's linked naming-system tld (its last label): the tld itself
   * (`apex`), `_identity.<tld>` (`proof`) or a name below it (`other`). Only the record source knows if it is linked.
   */
  | { readonly _tag: "Linked"; readonly tld: string; readonly part: "apex" | "proof" | "other" }

const outside: Place = { _tag: "Outside" }
const apex: Place = { _tag: "Apex" }
const nameserver: Place = { _tag: "Nameserver" }
const missing: Place = { _tag: "Missing" }

/** Printable ASCII labels without dots: what dns-packet can echo back byte for byte. */
const ECHOABLE = /^[\x21-\x2d\x2f-\x7e]{1,63}(\.[\x21-\x2d\x2f-\x7e]{1,63})*$/

/** dns-packet decodes labels as UTF-8 and joins them with dots, so other names would come back altered. */
export const isEchoable = (name: string): boolean => name === "." || (name.length <= 253 && ECHOABLE.test(name))

/** Any label that could be a handle; the source decides whether it is one, the rest never reaches it. */
const HANDLE_LABEL = /^[a-z0-9_-]{1,63}$/

export const normalizeZone = (zone: string): string => zone.trim().toLowerCase().replace(/^\.+|\.+$/g, "")

/** What a naming-system tld may be (as `PATCH /api/agent/domains/<tld>` takes it). */
const TLD_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/

/** The key under which a record source knows a linked tld: with its trailing dot, which no handle can have. */
export const linkedKey = (tld: string) => `${tld}.`

const linked = (name: string): Place => {
  const labels = name.split(".")
  const tld = labels[labels.length - 1]!
  if (!TLD_LABEL.test(tld)) return outside
  const part = labels.length === 1 ? "apex" : labels.length === 2 && labels[0] === "_identity" ? "proof" : "other"
  return { _tag: "Linked", tld, part }
}

/** `zone` must already be normalized. */
export const locate = (qname: string, zone: string): Place => {
  const name = qname.toLowerCase().replace(/\.$/, "")
  if (name === zone) return apex
  if (!name.endsWith(zone) || name.charCodeAt(name.length - zone.length - 1) !== 46) return linked(name)
  const labels = name.slice(0, name.length - zone.length - 1).split(".")
  if (labels.length === 1) {
    if (labels[0] === "ns1") return nameserver
    return HANDLE_LABEL.test(labels[0]) ? { _tag: "Handle", handle: labels[0] } : missing
  }
  if (labels.length === 2 && labels[0] === "_identity" && HANDLE_LABEL.test(labels[1])) {
    return { _tag: "Proof", handle: labels[1] }
  }
  return missing
}
