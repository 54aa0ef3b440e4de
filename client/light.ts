/**
 * The client's light door: the API client as every command that connects uses it (configuration, pacing, the shared window, the
 * read memo, idempotency keys, errors), without the archive download and the device login (with the zod schemas that one loads),
 * which index.ts, the package's door, adds. A command that imports index.ts loads them all: the CLI's bundle (build/cli-bundle.mjs)
 * puts every module a door re-exports in the chunks of the command that imports the door, used or not. The process's network alone
 * (HTTP that is not the Cube API's: a watch's status, notifications, commit statuses) is dispatcher.ts, a door too.
 */
export { clientConfigFromEnv, isLoopbackHost, type ClientConfig } from "./config.js";
export { createClient } from "./cube-client.js";
export { isCubeApiError } from "./errors.js";
export { DEFAULT_CONNECTIONS, MAX_DEFAULT_CONNECTIONS } from "./http.js";
export { newIdempotencyKey } from "./keys.js";
export { DEFAULT_RATE_LIMIT, MutationPacer } from "./pacer.js";
export { ReadMemo } from "./read-memo.js";
export { FileWindowStore, machineStateDir, pacingFileFor } from "./shared-window.js";
export type { RateWait, RateWaitListener } from "./throttle.js";
export { parseRetryAfter } from "./transport.js";
