/**
 * The CLI's words for what the library layers report by code: the flags that name a load's inputs (desired/ names none), and
 * what a blocked plan entry can be unblocked with.
 */
import {
  inWords,
  loadFleet,
  type FleetSource,
  type InputNames,
  type LoadedFiles,
  type LoadedFleet,
  type LoadFilesOptions,
  type RepoLoaded,
  type RepoSource,
} from "../desired/index.js";

export const CLI_NAMES: InputNames = {
  file: "-f/--file",
  stdin: "-f -",
  repo: "--repo",
  ref: "--ref",
  path: "--path",
  secretsDir: "--secrets-dir",
  allowedSigners: "--allowed-signers",
  gitTimeout: "--git-timeout",
  gitToken: "--git-token-env or --git-token-file",
};

/** A library error worded with the CLI's flags (in place). */
export const inCliWords = <T>(error: T): T => inWords(error, CLI_NAMES);

/** The desired state of a source, its errors in the CLI's words. */
export async function loadFleetForCli(source: LoadFilesOptions): Promise<LoadedFiles>;
export async function loadFleetForCli(source: RepoSource): Promise<RepoLoaded>;
export async function loadFleetForCli(source: FleetSource): Promise<LoadedFleet>;
export async function loadFleetForCli(source: FleetSource): Promise<LoadedFleet> {
  return loadFleet(source).catch((e: unknown) => Promise.reject(inCliWords(e)));
}

/** What the CLI adds to a blocked entry's reason, by its code: the flag that lifts it. */
const BLOCKED_HINTS: Record<string, string> = { replace_not_allowed: "--allow-replace" };

/** A blocked entry's reason with the CLI's flag for it ("… to allow it (or pass --allow-replace)"). */
export function blockedReason(blocked: { code: string; reason: string }): string {
  const flag = BLOCKED_HINTS[blocked.code];
  return flag === undefined ? blocked.reason : `${blocked.reason} (or pass ${flag})`;
}
