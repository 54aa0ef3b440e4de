/**
 * `${env:NAME}` references: the loader's one resolver, and how a file cubeform writes (the load cache, a saved plan) keeps the
 * reference instead of the value, with a salted digest so that a later run can tell whether the variable still holds it.
 */
import type { DesiredState } from "../engine/types.js";
import { nodeCrypto } from "../system/builtins.js";
import type { Position } from "./errors.js";

export type Env = Record<string, string | undefined>;

const ENV_REF = /\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g;
const EXACT_ENV_REF = /^\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}$/;

/**
 * Every reference replaced by its variable's value; an unset one is told to `unset` and stays. The variables told to `used`
 * (the load's `envNames`) hold secrets of the run: their values are redacted from all it prints (reconciler/redact.ts).
 */
export function resolveEnvRefs(text: string, env: Env, unset: (name: string, ref: string) => void, used?: (name: string) => void): string {
  if (!text.includes("${")) return text;
  return text.replace(ENV_REF, (ref: string, name: string) => {
    used?.(name);
    const value = env[name];
    if (value === undefined) unset(name, ref);
    return value ?? ref;
  });
}

export const PASSWORD_NOT_A_REFERENCE = "basicAuthPassword must be an environment reference like ${env:BASIC_AUTH_PASSWORD}";

/** The variable's name when `text` is exactly one reference ("${env:NAME}"). */
export function exactEnvRef(text: string): string | undefined {
  return EXACT_ENV_REF.exec(text)?.[1];
}

/** A basic-auth password: exactly one reference, left unresolved (normalize makes it a SecretRef, read only when sent). Its name, or the problem. */
function passwordRef(text: string, env: Env): { name: string } | { problem: string } {
  const name = exactEnvRef(text);
  if (name === undefined) return { problem: PASSWORD_NOT_A_REFERENCE };
  if (env[name] === undefined) return { problem: `environment variable ${name} is not set (basicAuthPassword refers to it)` };
  return { name };
}

/** What resolving a value's references found: the variables used, the passwords' variables, and each problem at its path. */
export interface EnvFound {
  used: Set<string>;
  secretNames: Set<string>;
  issues: { path: (string | number)[]; message: string }[];
}

export const envFound = (): EnvFound => ({ used: new Set(), secretNames: new Set(), issues: [] });

/** What a load keeps of a file: its desired state, the variables it read (the secret ones apart), its cubes and where they start. */
export function keptLoad(desired: DesiredState, found: EnvFound, cubePositions: Record<string, Position>, cubeNames: string[]) {
  return { desired, secretEnvNames: [...found.secretNames], envNames: [...found.used], cubePositions, cubeNames };
}

/**
 * The loader's one walk of `${env:NAME}` references, after either parser: every string value is resolved in place (keys are
 * not), except basicAuthPassword, which must be exactly one reference to a set variable and stays unresolved. `at`: the
 * value's path in the document, for the problems.
 */
export function resolveEnvIn(root: unknown, env: Env, found: EnvFound, at: (string | number)[] = []): void {
  const path = [...at];
  const seen = new Set<object>();
  const problem = (key: string | number, message: string): void => void found.issues.push({ path: [...path, key], message });
  const resolve = (text: string, key: string | number): string =>
    resolveEnvRefs(
      text,
      env,
      (name, ref) => problem(key, `environment variable ${name} is not set (referenced as ${ref})`),
      (name) => found.used.add(name),
    );
  const walk = (node: unknown): void => {
    // An alias's value is the same object as its anchor's: resolved once.
    if (typeof node !== "object" || node === null || seen.has(node)) return;
    seen.add(node);
    const list = Array.isArray(node);
    const map = node as Record<string | number, unknown>;
    for (const key of list ? (node as unknown[]).keys() : Object.keys(map)) {
      const value = map[key];
      if (typeof value !== "string") {
        path.push(key);
        walk(value);
        path.pop();
      } else if (list || key !== "basicAuthPassword") map[key] = resolve(value, key);
      else {
        const ref = passwordRef(value, env);
        if ("name" in ref) found.secretNames.add(ref.name);
        else problem(key, ref.problem);
      }
    }
  };
  walk(root);
}

/** The variables whose values a written file stood for, each by a salted digest of its value. */
export interface SealedEnv {
  salt: string;
  digests: Record<string, string>;
}

const digestOf = (salt: string, value: string): string => nodeCrypto().createHmac("sha256", salt).update(value).digest("hex");

export function sealEnv(names: Iterable<string>, env: Env): SealedEnv {
  const salt = nodeCrypto().randomBytes(16).toString("hex");
  const digests: Record<string, string> = {};
  for (const name of names) digests[name] = digestOf(salt, env[name] ?? "");
  return { salt, digests };
}

/** The variables whose value is not the one the file was written with (unset included). */
export function changedEnv(sealed: SealedEnv, env: Env): string[] {
  return Object.entries(sealed.digests)
    .filter(([name, digest]) => env[name] === undefined || digestOf(sealed.salt, env[name]) !== digest)
    .map(([name]) => name);
}

/**
 * A copy of `value` for writing: in every string (keys too), each variable's value becomes its reference again and every "$"
 * is doubled, so withValues reads it back exactly. Identity when no variable was resolved (withValues is then identity too).
 */
export function withReferences<T>(value: T, sealed: SealedEnv, env: Env): T {
  const values = Object.keys(sealed.digests)
    .map((name) => ({ name, escaped: escape(env[name] ?? "") }))
    .filter((v) => v.escaped !== "")
    .sort((a, b) => b.escaped.length - a.escaped.length);
  if (values.length === 0) return value;
  return mapStrings(value, (text) => {
    let out = escape(text);
    for (const { name, escaped } of values) if (out.includes(escaped)) out = out.replaceAll(escaped, `\${env:${name}}`);
    return out;
  });
}

/** What withReferences wrote, with the variables' current values (check changedEnv first). */
export function withValues<T>(value: T, sealed: SealedEnv, env: Env): T {
  if (!Object.keys(sealed.digests).some((name) => env[name])) return value;
  return mapStrings(value, (text) =>
    text.includes("$")
      ? text.replace(/\$\$|\$\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g, (match, name?: string) =>
          name === undefined ? "$" : (env[name] ?? match),
        )
      : text,
  );
}

const escape = (text: string): string => (text.includes("$") ? text.replaceAll("$", "$$$$") : text);

function mapStrings<T>(value: T, map: (text: string) => string): T {
  if (typeof value === "string") return map(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, map)) as T;
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[map(key)] = mapStrings(item, map);
  return out as T;
}
