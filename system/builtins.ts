/**
 * Loaded on first use: node:crypto (its fifteen modules; `cubeform validate` needs none), node:fs/promises with the modules it
 * loads (~5 ms of a plan, which reads and writes its files at once), node:os (~2 ms; asked only for a directory when HOME is
 * unset), node:tls (~2 ms; only with CUBE_CA_FILE, undici loads it itself for an https:// connection).
 */
import { createRequire } from "node:module";

const load = createRequire(import.meta.url);

/** The module, required once: some are asked for once per cube. */
function once<T>(name: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load(name) as T);
}

export const nodeCrypto = once<typeof import("node:crypto")>("node:crypto");
export const fsPromises = once<typeof import("node:fs/promises")>("node:fs/promises");
export const nodeOs = once<typeof import("node:os")>("node:os");
export const nodeTls = once<typeof import("node:tls")>("node:tls");
