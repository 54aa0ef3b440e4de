/**
 * Node's modules that most commands never use, loaded on first use: node:crypto, and
 * node:fs/promises with the readline and stream modules it loads, are ~5 ms of every
 * `cubeform validate` that hashes nothing and writes nothing.
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const crypto = (): typeof import("node:crypto") => load("node:crypto") as typeof import("node:crypto");
export const fsPromises = (): typeof import("node:fs/promises") => load("node:fs/promises") as typeof import("node:fs/promises");
