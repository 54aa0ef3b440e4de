/** `--rate-limit N/SECONDS`: the mutations the API allows per window, as the CLI takes it. */
import { CliError } from "./errors.js";

export interface RateLimit {
  limit: number;
  windowMs: number;
}

/** "N/SECONDS" → { limit, windowMs }, with a clear error. */
export function parseRateLimit(text: string, flag = "--rate-limit"): RateLimit {
  const match = /^\s*(\d+)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const limit = Number(match?.[1]);
  const seconds = Number(match?.[2]);
  if (!match || !(limit >= 1) || !(seconds > 0)) {
    throw new CliError("invalid_option", `${flag} must look like N/SECONDS with N ≥ 1 and SECONDS > 0, e.g. 10/60 (got "${text}")`);
  }
  return { limit, windowMs: Math.round(seconds * 1000) };
}
