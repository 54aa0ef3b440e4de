/** The loader's second entry: a repository as a source (clone, signed commits, confinement), loaded only when one is named. */
export { GitSource, type GitCredentials } from "./git-source.js";
export { RepoLoader } from "./repo-load.js";
