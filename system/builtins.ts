/**
 * Loaded on first use: node:crypto, and node:fs/promises with the modules it loads, are ~5 ms of a `cubeform validate` that needs neither;
 * node:tls ~2 ms of a command that only uses it with CUBE_CA_FILE (undici loads it itself for an https:// connection); node:os
 * ~2 ms of a plan, which asks it for a directory only when HOME is unset.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const nodeCrypto = (): typeof import("node:crypto") => load("node:crypto") as typeof import("node:crypto");
export const fsPromises = (): typeof import("node:fs/promises") => load("node:fs/promises") as typeof import("node:fs/promises");
export const nodeOs = (): typeof import("node:os") => load("node:os") as typeof import("node:os");
export const nodeTls = (): typeof import("node:tls") => load("node:tls") as typeof import("node:tls");
