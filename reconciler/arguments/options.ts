/**
 * The values the commands parse their flags into, and the zod schemas that do it (one clear error per bad flag): what actions
 * and session/ take, apart from commander's declarations (commands/). zod/mini, as all product code (schema/zod-english.ts).
 */
import "../../schema/zod-english.js";
import * as z from "zod/mini";
import { CliError } from "../errors.js";
import { parseDuration } from "../../system/time.js";

export const FORMATS = ["text", "json", "markdown", "github"] as const;
export type Format = (typeof FORMATS)[number];

export const DEFAULT_FILE = "cubeform.yaml";

export const FileOptions = z.object({
  file: z.pipe(
    z._default(z.array(z.string().check(z.minLength(1))), []),
    z.transform((files: string[]) => (files.length > 0 ? files : [DEFAULT_FILE])),
  ),
});

/** client/http.ts DEFAULT_CONNECTIONS (not imported: this module loads for every command, the client only for those that connect). */
export const DEFAULT_PARALLELISM = 64;

export const FormatOption = z.object({ format: z._default(z.enum(FORMATS), "text") });

/**
 * Parses commander's options with a schema; a bad value is a one-line error naming the flag.
 * Once per run: without zod's compiled fast parser, which takes longer to make than to use once.
 */
export function parseOptions<T extends z.core.$ZodType>(schema: T, raw: unknown): z.output<T> {
  const result = z.safeParse(schema, raw, { jitless: true });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  // The path is the option's name, then (for a repeatable one) which of its values.
  const flag = (issue?.path ?? []).map((p) => (typeof p === "number" ? `(value ${p + 1})` : flagName(String(p)))).join(" ");
  throw new CliError("invalid_option", `invalid option ${flag}: ${issue?.message ?? "invalid value"}`);
}

/** `cubeform dns --format`. */
export const DNS_FORMATS = ["text", "json", "zone"] as const;

/** The day-2 commands (cube, snapshot, backup, upload): connection flags and `--format text|json`. */
export const DAY2_FORMATS = ["text", "json"] as const;

export function waitOptionsOf(raw: unknown): { wait: boolean; timeoutMs: number; intervalMs: number } {
  const { wait, timeout, interval } = parseOptions(
    z.object({ wait: z._default(z.boolean(), false), timeout: z.string(), interval: z.string() }),
    raw,
  );
  return { wait, timeoutMs: parseDuration(timeout, "--timeout"), intervalMs: parseDuration(interval, "--interval") };
}

export const RepoOptions = z.object({
  repo: z.optional(z.string().check(z.minLength(1))),
  ref: z.optional(z.string().check(z.minLength(1))),
  path: z._default(z.string().check(z.minLength(1)), "cubeform.yaml"),
  secretsDir: z.optional(z.string().check(z.minLength(1))),
  gitTokenEnv: z.optional(z.string().check(z.regex(/^[A-Za-z_][A-Za-z0-9_]*$/))),
  gitTokenFile: z.optional(z.string().check(z.minLength(1))),
  gitUsername: z._default(z.string().check(z.minLength(1)), "x-access-token"),
  sshKey: z.optional(z.string().check(z.minLength(1))),
  sshKnownHosts: z.optional(z.string().check(z.minLength(1))),
  allowedSigners: z.optional(z.string().check(z.minLength(1))),
  gitTimeout: z._default(z.string(), "60s"),
});
export type RepoOptions = z.infer<typeof RepoOptions>;

/** -f and --repo name two different sources; the --repo-only flags without --repo are a mistake. */
export function checkRepoFlags(options: RepoOptions & { file?: readonly string[] }, rawFiles: unknown): void {
  const filesGiven = Array.isArray(rawFiles) && rawFiles.length > 0;
  if (options.repo !== undefined && filesGiven)
    throw new CliError(
      "invalid_option",
      "-f and --repo name two sources: use one (with --repo, --path names the file inside the repository)",
    );
  if (options.repo !== undefined) return;
  const orphan = (["ref", "secretsDir", "gitTokenEnv", "gitTokenFile", "sshKey", "sshKnownHosts", "allowedSigners"] as const).find(
    (name) => options[name] !== undefined,
  );
  if (orphan !== undefined) throw new CliError("invalid_option", `${flagName(orphan)} needs --repo`);
}

/** "secretsDir" → "--secrets-dir". */
const flagName = (option: string): string => `--${option.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;

/** A time flag in ms: a duration, or a bare number in `bareUnit` (the flag's unit before durations: scripts keep working); `zero` allows 0. */
export function durationFlag(text: string, flag: string, bareUnit: "ms" | "s", options: { zero?: boolean } = {}): number {
  if (options.zero === true && /^\s*0+(\.0*)?\s*(ms|s|m|h)?\s*$/.test(text)) return 0;
  return parseDuration(text, flag, bareUnit);
}
