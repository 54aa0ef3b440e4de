/** ["cubes", 2, "image"] → "cubes[2].image": where a schema issue is, as the loader's errors and the provider's check failures name it. */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  return path.map((part, i) => (typeof part === "number" ? `[${part}]` : i === 0 ? String(part) : `.${String(part)}`)).join("");
}
