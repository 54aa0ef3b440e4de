/**
 * The engine's light door: the few rules that `cubeform validate` needs without running the engine — the file loader's (replica
 * names, the SSH port's default) and the text renderer's (the markers of hidden values, a policy report's verdicts). index.ts would
 * make validate load the whole engine: the CLI's bundle (build/cli-bundle.mjs) puts every module a door re-exports in the chunks of
 * the command that imports the door, used or not. Types come from types.ts or index.ts: an `import type` loads nothing.
 */
export { DEFAULT_SSH_PORT } from "./cube-rules.js";
export { KNOWN_AFTER_APPLY, SENSITIVE } from "./compare.js";
export { blocksApply } from "./policy.js";
export { groupIssues, groupSpec, memberHostname, memberInput, memberName, memberNameIssues } from "./replicas.js";
