/**
 * Input names of earlier releases (before the provider took the desired-state file's names), still accepted so existing programs and stacks keep working.
 * Shared by the resource classes (which warn) and check() (which renames); diff reads old state under either name.
 */
export const DEPRECATED_INPUT_NAMES = {
  Domain: { domain: "hostname" },
  TcpMapping: { udpEnabled: "udp", whitelistedIps: "allow" },
} as const satisfies Record<string, Record<string, string>>;

export type AliasedKind = keyof typeof DEPRECATED_INPUT_NAMES;

export type Renamed = { from: string; to: string };

/** The old names among `props` (whose new name is not also given). */
export function deprecatedNamesIn(kind: AliasedKind, props: Record<string, unknown>): Renamed[] {
  return Object.entries(DEPRECATED_INPUT_NAMES[kind])
    .filter(([from, to]) => props[from] !== undefined && props[to] === undefined)
    .map(([from, to]) => ({ from, to }));
}

/** `props` with every deprecated name moved to its new one; a new name given as well wins. */
export function withCurrentNames(kind: AliasedKind, props: Record<string, unknown>): Record<string, unknown> {
  const next = { ...props };
  for (const [from, to] of Object.entries(DEPRECATED_INPUT_NAMES[kind])) {
    if (!(from in next)) continue;
    if (next[to] === undefined) next[to] = next[from];
    delete next[from];
  }
  return next;
}

export function deprecationWarning(kind: AliasedKind, renamed: Renamed[]): string {
  const list = renamed.map(({ from, to }) => `\`${from}\` is now \`${to}\``).join(", ");
  return `cubeform ${kind}: deprecated input name${renamed.length > 1 ? "s" : ""}: ${list} (the desired-state file's names). The old names still work; rename them to silence this warning.`;
}

/** A value of old state under its current name, else under its old name. */
export function stateValue<T>(state: Record<string, unknown>, kind: AliasedKind, name: string): T | undefined {
  if (state[name] !== undefined) return state[name] as T;
  const old = Object.entries(DEPRECATED_INPUT_NAMES[kind]).find(([, to]) => to === name)?.[0];
  return old === undefined ? undefined : (state[old] as T | undefined);
}
