/**
 * Where cubeform keeps things: the user's XDG directories, read from the command's environment (a test or a wrapper can point
 * them elsewhere; env-paths reads process.env only, and uses other places on macOS), and a per-user machine directory (locks).
 */
import { nodeCrypto, nodeOs } from "./builtins.js";
import { lstatSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ensurePrivateDir } from "./files.js";

export type Env = Record<string, string | undefined>;
export type UserDirKind = "state" | "cache" | "config";

const XDG: Record<UserDirKind, [variable: string, underHome: string]> = {
  state: ["XDG_STATE_HOME", join(".local", "state")],
  cache: ["XDG_CACHE_HOME", ".cache"],
  config: ["XDG_CONFIG_HOME", ".config"],
};

/** $XDG_STATE_HOME (or _CACHE_, _CONFIG_) when absolute, else its default under $HOME (else the OS home). */
export function xdgHome(env: Env, kind: UserDirKind): string {
  const [variable, underHome] = XDG[kind];
  const set = env[variable]?.trim();
  if (set && isAbsolute(set)) return set;
  return join(env.HOME?.trim() || nodeOs().homedir(), underHome);
}

/** cubeform's own directory of that kind, e.g. ~/.local/state/cubeform. */
export function userDir(env: Env, kind: UserDirKind): string {
  return join(xdgHome(env, kind), "cubeform");
}

/**
 * One directory per user of this machine, whatever HOME or XDG_* say, so all runs meet there. Refused unless it is a real
 * directory of this user that no one else can write (another user could create it first in the shared temp directory).
 */
export function machineDir(): string {
  const uid = process.getuid?.();
  const dir = join(nodeOs().tmpdir(), `cubeform-${uid ?? "user"}`);
  ensurePrivateDir(dir);
  const stats = lstatSync(dir);
  if (!stats.isDirectory() || (uid !== undefined && stats.uid !== uid) || (stats.mode & 0o022) !== 0) {
    throw Object.assign(new Error(`${dir} is not a private directory of this user; remove it and run again`), { code: "machine_dir" });
  }
  return dir;
}

/** A short, filesystem-safe name for a string (an origin, a space). */
export function fileKey(text: string): string {
  return nodeCrypto().createHash("sha256").update(text).digest("hex").slice(0, 16);
}
