/** `--rate-limit N/SECONDS`: the mutations the API allows per window, as the CLI takes it. */
import { parseRate, type Rate } from "../../system/time.js";

export type RateLimit = Rate;

export const parseRateLimit = (text: string, flag = "--rate-limit"): RateLimit => parseRate(text, flag);
