/** How much of each file the loader reads (system/files.ts): past its bound a file is refused unread, so a link to /dev/zero costs nothing. */
import { USER_DATA_MAX_BYTES } from "../schema/common.js";
import type { ReadLimit } from "../system/files.js";

const KB = 1024;
const MB = 1024 * KB;

/**
 * A desired-state file (standard input too): the bench's 30,000-cube fleets are ~10 MB, so 64 MB is ~190,000 cubes, and still a
 * bounded cost (the positioned load of a bad file holds a few times it).
 */
export const FLEET_FILE: ReadLimit = { maxBytes: 64 * MB, what: "a desired-state file" };

/** An OpenSSH public key is one line: an RSA 16384-bit key is ~2.8 KB; 16 KB leaves room for any comment. */
export const SSH_PUBLIC_KEY_FILE: ReadLimit = { maxBytes: 16 * KB, what: "an SSH public key" };

/** The API's own cap on userData (16 KB): a larger script could never be sent. */
export const USER_DATA_FILE: ReadLimit = { maxBytes: USER_DATA_MAX_BYTES, what: "userData (the API's cap)" };

export const REFERENCED_FILES = { sshPublicKeyFile: SSH_PUBLIC_KEY_FILE, userDataFile: USER_DATA_FILE } as const;

/** The largest any referenced file may be: for re-reading one to see whether it changed. */
export const ANY_REFERENCED_FILE: ReadLimit = {
  maxBytes: Math.max(SSH_PUBLIC_KEY_FILE.maxBytes, USER_DATA_FILE.maxBytes),
  what: "a file the fleet names",
};

/** A load-cache entry: the loaded fleet as JSON, ~1.8× its file (~18 MB at 30,000 cubes); 4× the largest file. */
export const LOAD_CACHE_ENTRY: ReadLimit = { maxBytes: 4 * FLEET_FILE.maxBytes, what: "a load-cache entry" };
