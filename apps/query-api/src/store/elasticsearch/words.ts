/**
 * The port's "words" rule: lower-case, split on every character that is not a Unicode letter or digit.
 * The `words` analyzer of the mappings applies the same rule inside Elasticsearch.
 */
export function wordsOf(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

/**
 * Every word-boundary suffix of a normalised name ("acme sports ltd" -> itself, "sports ltd", "ltd"),
 * so the port's name search (the name, or its part from any word on, starts with q) is one `prefix`
 * query on a keyword array.
 */
export function nameSuffixes(...names: (string | null | undefined)[]): string[] {
  const suffixes = new Set<string>();
  for (const name of names) {
    if (!name) continue;
    const words = wordsOf(name);
    for (let start = 0; start < words.length; start++) suffixes.add(words.slice(start).join(' '));
  }
  return [...suffixes];
}
