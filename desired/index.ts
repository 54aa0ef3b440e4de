/**
 * The desired-state loader's front door: a source (files, directories, standard input, or a commit of a repository) →
 * DesiredState, with where each thing is written. The CLI and the Pulumi Fleet enter here; the git machinery has its own
 * entry (git.ts), loaded only by a repository source.
 */
import type { DiskLoadCache } from "./load-cache.js";
import type { RepoLoaded, RepoLoader } from "./repo-load.js";
import { loadDesiredFiles, loadDesiredFilesSync, type LoadedFiles, type LoadFilesOptions } from "./sources.js";

/**
 * Files and directories (LoadFilesOptions), or a repository at its ref's commit (a RepoLoader, from git.ts), whose large
 * files the disk cache answers again while the commit's file is unchanged.
 */
export type FleetSource = LoadFilesOptions | RepoSource;
export interface RepoSource {
  repo: RepoLoader;
  diskCache?: DiskLoadCache;
}
export type LoadedFleet = LoadedFiles | RepoLoaded;

export function loadFleet(source: LoadFilesOptions): Promise<LoadedFiles>;
export function loadFleet(source: RepoSource): Promise<RepoLoaded>;
export function loadFleet(source: FleetSource): Promise<LoadedFleet>;
export function loadFleet(source: FleetSource): Promise<LoadedFleet> {
  return "repo" in source ? source.repo.load(source.diskCache) : loadDesiredFiles(source);
}

/** Files and directories only, synchronously: the Pulumi Fleet component loads in its constructor. */
export function loadFleetSync(source: Omit<LoadFilesOptions, "openStdin">): LoadedFiles {
  return loadDesiredFilesSync(source);
}

export type { LoadedFiles, LoadFilesOptions, FilePosition } from "./sources.js";
export { STDIN } from "./sources.js";
export type { IssuePath, LoadedFile, Position } from "./load-types.js";
export type { RepoLoaded, RepoLoader } from "./repo-load.js";
export { shortCommit } from "./short-commit.js";
export { LoadCache } from "./memory-cache.js";
export { DiskLoadCache } from "./load-cache.js";
export {
  formatProblem,
  inWords,
  GitSourceError,
  LoadError,
  RepoLoadError,
  SourceError,
  UntrustedCommitError,
  type InputNames,
} from "./errors.js";
export { changedEnv, sealEnv, withReferences, withValues, type Env, type SealedEnv } from "./env.js";
export { didYouMean } from "./suggest.js";
export { SSH_PUBLIC_KEY_FILE } from "./limits.js";
export { combineRules, loadPolicyFiles, POLICY_FILE } from "./policy.js";
export { normalize } from "./normalize.js";
export { DesiredStateError } from "./errors.js";
