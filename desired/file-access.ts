/** How the files a document names are read (sshPublicKeyFile, userDataFile) and where a webhook's secretFile goes. */
import { resolve } from "node:path";
import { FileReadError, readRegularText } from "../system/files.js";
import { confinedPath, secretPathUnder } from "./confine.js";
import { REFERENCED_FILES } from "./limits.js";

/** The files a load read besides the YAML itself, with their text (a cache checks them again). */
export type ReferencedReads = Map<string, string>;

export interface FileAccess {
  /** Reads a file the document names, bounded by what it is for (`field`); throws saying why not. */
  readTextFile(path: string, field: keyof typeof REFERENCED_FILES): string;
  /** Where a file the document names (a webhook's secretFile) is written; throws when it may not be. */
  resolvePath?(path: string): string;
}

/** Relative to the YAML file; inside the checkout when there is one (`root`), and secrets then under `secretsDir` only. */
export function fileAccess(
  baseDir: string,
  reads: ReferencedReads,
  options: { root?: string | undefined; secretsDir?: string | undefined },
): FileAccess {
  const { root, secretsDir } = options;
  if (root === undefined)
    return {
      readTextFile: (path, field) => readReferencedFile(resolve(baseDir, path), field, reads),
      resolvePath: (path) => resolve(baseDir, path),
    };
  return {
    readTextFile: (path, field) => readReferencedFile(confinedPath(root, baseDir, path), field, reads),
    resolvePath: (path) => secretPathUnder(secretsDir, path),
  };
}

/** normalize puts this message after "cannot read <path>: ", at the key that names the file. */
function readReferencedFile(absPath: string, field: keyof typeof REFERENCED_FILES, reads: ReferencedReads): string {
  try {
    const text = readRegularText(absPath, REFERENCED_FILES[field]);
    reads.set(absPath, text);
    return text;
  } catch (e) {
    if (!(e instanceof FileReadError)) throw e;
    const notThere = e.refusal === "missing" || e.refusal === "dangling_symlink";
    throw new Error(notThere ? `${e.reason} (looked for ${absPath}; paths are relative to the YAML file)` : e.reason);
  }
}
