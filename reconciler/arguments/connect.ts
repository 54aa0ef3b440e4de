/**
 * The zod schemas of the flags only the commands that connect use (plan, apply, drift, watch, the day-2 commands): apart from
 * options.ts, so that `cubeform validate` does not build them (zod/mini schemas cost ~0.1 ms each to make).
 */
import "../../schema/zod-english.js";
import * as z from "zod/mini";
import { cwdOf, type CliIo } from "../io.js";
import { parseRateLimit, type RateLimit } from "../session/rate-limit.js";
import { DAY2_FORMATS, durationFlag, FileOptions, parseOptions, RepoOptions } from "./options.js";

export const DnsReadOptions = z.object({
  dnsConcurrency: z._default(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(64)), 4),
  dnsRate: z._default(z.string(), "10/1"),
});

export function dnsPaceOf(options: z.output<typeof DnsReadOptions>): { concurrency: number; rate: RateLimit } {
  return { concurrency: options.dnsConcurrency, rate: parseRateLimit(options.dnsRate, "--dns-rate") };
}

export const ConnectOptions = z.object({
  emulator: z._default(z.boolean(), false),
  rateLimit: z._default(z.string(), "10/60"),
  parallelism: z.optional(z.coerce.number().check(z.int(), z.minimum(1), z.maximum(512))),
  stateDir: z.optional(z.string().check(z.minLength(1))),
});

export const TargetOption = z.object({ target: z._default(z.array(z.string().check(z.minLength(1))), []) });

export const Day2Options = z.object({ ...ConnectOptions.shape, format: z._default(z.enum(DAY2_FORMATS), "text") });

/** A day-2 subcommand's parsed connection flags and format (its own flags pass through untouched). */
export function day2Context(raw: unknown, io: CliIo) {
  const { rateLimit, ...options } = parseOptions(z.looseObject(Day2Options.shape), raw);
  return { ...options, rateLimit: parseRateLimit(rateLimit), cwd: cwdOf(io) };
}

export const PlanFlagOptions = z.object({
  prune: z._default(z.boolean(), false),
  allowReplace: z._default(z.boolean(), false),
  allowUnknownCost: z._default(z.boolean(), false),
  /** Milliseconds (parsed from --pricing-timeout by commander). */
  pricingTimeout: z.optional(z.number().check(z.positive())),
});

export const SessionOptions = z.object({ ...FileOptions.shape, ...ConnectOptions.shape, ...TargetOption.shape, ...RepoOptions.shape });
export type SessionOptions = z.output<typeof SessionOptions>;

export const StepWaitOptions = z.object({ waitTimeout: z._default(z.string(), "10m"), pollInterval: z._default(z.string(), "2s") });

export type StepWaits = { waitTimeoutMs: number; pollIntervalMs: number };

export function stepWaits(options: z.output<typeof StepWaitOptions>): StepWaits {
  return {
    waitTimeoutMs: durationFlag(options.waitTimeout, "--wait-timeout", "s"),
    pollIntervalMs: durationFlag(options.pollInterval, "--poll-interval", "ms"),
  };
}

export const YesOption = z.object({ yes: z._default(z.boolean(), false) });
