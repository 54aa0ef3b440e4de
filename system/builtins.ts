/** Loaded on first use: node:crypto, and node:fs/promises with the modules it loads, are ~5 ms of a `cubeform validate` that needs neither. */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

export const nodeCrypto = (): typeof import("node:crypto") => load("node:crypto") as typeof import("node:crypto");
export const fsPromises = (): typeof import("node:fs/promises") => load("node:fs/promises") as typeof import("node:fs/promises");
