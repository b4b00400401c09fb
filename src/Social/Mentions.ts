/** `@handle` mentions in a text: lowercased, each once, in order of first appearance. */
const mention = /(?<![A-Za-z0-9_@.-])@([A-Za-z0-9_-]{2,32})(?![A-Za-z0-9_-])/g

export const mentionedHandles = (text: string): ReadonlyArray<string> => {
  const seen = new Set<string>()
  for (const m of text.matchAll(mention)) seen.add(m[1]!.toLowerCase())
  return [...seen]
}
