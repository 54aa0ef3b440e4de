/**
 * Credentials as the service's own CLI (`krova`) keeps them (live-api-facts.md §10): $XDG_CONFIG_HOME/krova/config.json, 0600 in a 0700 directory,
 * {currentContext, contexts[]}; an older single-key file reads as the context "default". KROVA_CONTEXT picks one; CUBE_* / KROVA_* variables win.
 */
import { chmodSync, mkdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import "../../schema/zod-english.js";
import * as z from "zod/mini";
import type { ClientConfig } from "../../client/light.js";
import { CliError } from "../errors.js";
import { xdgHome } from "../../system/dirs.js";
import { FileReadError, readRegularText, writeFileAtomicSync, type ReadLimit } from "../../system/files.js";

type Env = Record<string, string | undefined>;

// zod/mini: a plan reads this file before anything else of the API's is needed.
const text = () => z.string().check(z.minLength(1));
const Context = z.looseObject({
  name: text(),
  apiKey: text(),
  spaceId: z.nullish(text()),
  spaceName: z.nullish(z.string()),
  baseUrl: z.nullish(text()),
});
export type KrovaContext = z.infer<typeof Context>;

const ConfigFile = z.looseObject({ currentContext: z.nullish(z.string()), contexts: z._default(z.array(Context), []) });
const LegacyFile = z.looseObject({
  apiKey: text(),
  spaceId: z.nullish(z.string()),
  spaceName: z.nullish(z.string()),
  baseUrl: z.nullish(z.string()),
});
export type KrovaConfig = z.infer<typeof ConfigFile>;

export const DEFAULT_CONTEXT = "default";

/** The krova CLI's config: a few contexts of a key and a URL each; 1 MB is thousands of them. */
const KROVA_CONFIG: ReadLimit = { maxBytes: 1024 * 1024, what: "the krova CLI config" };

export function krovaConfigPath(env: Env): string {
  return join(xdgHome(env, "config"), "krova", "config.json");
}

/** The file, or undefined when there is none. Refused when others can read it (it holds API keys). */
export function readKrovaConfig(env: Env): { path: string; config: KrovaConfig } | undefined {
  const path = krovaConfigPath(env);
  let text: string;
  try {
    // Read first: a link to a device is refused as what it is, not for the device's mode.
    text = readRegularText(path, KROVA_CONFIG);
    const mode = statSync(path).mode & 0o777;
    if ((mode & 0o077) !== 0) {
      throw new CliError(
        "config_mode",
        `${path} holds API keys but other users can read it (mode ${mode.toString(8).padStart(4, "0")}); run: chmod 600 ${path}`,
      );
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" || (error instanceof FileReadError && error.refusal === "missing"))
      return undefined;
    if (error instanceof FileReadError) throw new CliError("config_unreadable", `${error.message}; fix it or run \`cubeform login\` again`);
    throw error;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new CliError("config_invalid", `${path} is not valid JSON; fix it or run \`cubeform login\` again`);
  }
  const parsed = ConfigFile.safeParse(raw);
  if (parsed.success && (parsed.data.contexts.length > 0 || !LegacyFile.safeParse(raw).success)) return { path, config: parsed.data };
  const legacy = LegacyFile.safeParse(raw);
  if (legacy.success) return { path, config: { currentContext: DEFAULT_CONTEXT, contexts: [{ ...legacy.data, name: DEFAULT_CONTEXT }] } };
  throw new CliError(
    "config_invalid",
    `${path}: ${parsed.error?.issues[0]?.message ?? "not a krova CLI config"}; fix it or run \`cubeform login\` again`,
  );
}

/** The context KROVA_CONTEXT (else currentContext, else the only one) names; undefined without a file. */
export function contextFromFile(env: Env): { path: string; context: KrovaContext } | undefined {
  const found = readKrovaConfig(env);
  if (!found) return undefined;
  const { path, config } = found;
  const wanted =
    env.KROVA_CONTEXT?.trim() || config.currentContext || (config.contexts.length === 1 ? config.contexts[0]?.name : undefined);
  if (!wanted) return undefined;
  const context = config.contexts.find((c) => c.name === wanted);
  if (!context) {
    const names = config.contexts.map((c) => c.name).join(", ") || "none";
    throw new CliError(
      "config_context",
      `${path} has no context "${wanted}"${env.KROVA_CONTEXT ? " (from KROVA_CONTEXT)" : ""}; contexts: ${names}`,
    );
  }
  return { path, context };
}

/** The file's context fills in the key, space and URL (variables win); `keyFrom` says where the key came from, for a refused key. */
export function credentialsFrom(envConfig: Partial<ClientConfig>, env: Env): { config: ClientConfig; keyFrom: string } | undefined {
  const found = contextFromFile(env);
  if (!found) return undefined;
  const { context, path } = found;
  const spaceId = envConfig.spaceId ?? context.spaceId ?? undefined;
  const config = {
    baseUrl: envConfig.baseUrl ?? context.baseUrl ?? "https://krova.cloud/api/v1",
    apiKey: context.apiKey,
    ...(spaceId ? { spaceId } : {}),
  };
  return { config, keyFrom: `the context "${context.name}"${env.KROVA_CONTEXT?.trim() ? " (KROVA_CONTEXT)" : ""} of ${path}` };
}

/** Adds or replaces a context (by name) and makes it current; file 0600 in a 0700 directory, written atomically. */
export function saveContext(env: Env, context: KrovaContext): string {
  const path = krovaConfigPath(env);
  const existing = (() => {
    try {
      return readKrovaConfig(env)?.config;
    } catch (error) {
      if (error instanceof CliError && error.code === "config_mode") return readAnyway(path);
      throw error;
    }
  })() ?? { currentContext: null, contexts: [] };
  const contexts = [...existing.contexts.filter((c) => c.name !== context.name), context];
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  chmodSync(dirname(path), 0o700);
  writeFileAtomicSync(path, `${JSON.stringify({ ...existing, currentContext: context.name, contexts }, null, 2)}\n`, { mode: 0o600 });
  return path;
}

function readAnyway(path: string): KrovaConfig | undefined {
  const parsed = ConfigFile.safeParse(JSON.parse(readRegularText(path, KROVA_CONFIG)));
  return parsed.success ? parsed.data : undefined;
}
