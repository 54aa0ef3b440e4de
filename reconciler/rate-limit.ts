/** `--rate-limit N/SECONDS`: the mutations the API allows per window, as the CLI takes it. */
import { parseRate, type Rate } from "../system/time.js";

export type RateLimit = Rate;

export function parseRateLimit(text: string, flag = "--rate-limit"): RateLimit {
  return parseRate(text, flag);
}
