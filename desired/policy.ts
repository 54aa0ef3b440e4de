/**
 * Policy files (issue 36): `apiVersion: cubeform/v1`, `kind: Policy`, `rules:`. Kept apart from the fleet file so that its authors cannot weaken
 * them: a fleet's `policies:` may add rules, never redefine one of a policy file. Problems are located (FILE:LINE:COL) with did-you-mean, as the
 * fleet file's are (load.ts).
 */
import { isAbsolute, resolve } from "node:path";
import type { $ZodIssue } from "zod/v4/core";
import type { SourcedRule } from "../engine/index.js";
import { policySchemas, type PolicyRule } from "../schema/policy.js";
import { FileReadError, readRegularText, type ReadLimit } from "../system/files.js";
import { LoadError, quoted, UnreadableFileError, type FileProblem } from "./errors.js";
import { formatPath } from "./issue-text.js";
import { ParsedFile } from "./parsed-file.js";
import { fastLoad, UNSUPPORTED } from "./yaml-split.js";
import { didYouMean } from "./suggest.js";

/** A policy file is a few dozen rules: 1 MB is far more than any needs. */
export const POLICY_FILE: ReadLimit = { maxBytes: 1024 * 1024, what: "a policy file" };

export interface PolicyLoadOptions {
  /** As the user named them; relative to cwd. */
  files: readonly string[];
  cwd: string;
}

/** Every rule of the files, each with where it is written ("policy.yaml:4:5"); every file's problems at once. */
export function loadPolicyFiles(options: PolicyLoadOptions): SourcedRule[] {
  const rules: SourcedRule[] = [];
  const problems: FileProblem[] = [];
  const firstAt = new Map<string, string>();
  for (const file of options.files) {
    const loaded = loadPolicyFile(file, options.cwd);
    if ("problems" in loaded) {
      problems.push(...loaded.problems);
      continue;
    }
    for (const sourced of loaded.rules) {
      const there = firstAt.get(sourced.rule.name);
      if (there !== undefined)
        problems.push(
          problemAt(sourced.source, `rule ${quoted(sourced.rule.name)} is already defined at ${there}: give each rule its own name`),
        );
      else firstAt.set(sourced.rule.name, sourced.source);
      rules.push(sourced);
    }
  }
  if (problems.length > 0) throw new LoadError(options.files.join(", "), problems);
  return rules;
}

function loadPolicyFile(file: string, cwd: string): { rules: SourcedRule[] } | { problems: FileProblem[] } {
  const text = readPolicyText(isAbsolute(file) ? file : resolve(cwd, file), file);
  const light = loadLightPolicy(file, text);
  if (light !== undefined) return light;
  const parsed = new ParsedFile(file, text, policySchemas().PolicyDocument);
  if (parsed.problems.length > 0) return { problems: parsed.problems };
  const raw = parsed.value;
  if (parsed.problems.length > 0) return { problems: parsed.problems };
  const result = policySchemas().PolicyDocument.safeParse(raw);
  if (!result.success) {
    for (const issue of result.error.issues) addIssue(parsed, issue);
    return { problems: parsed.problems };
  }
  return {
    rules: result.data.rules.map((rule, i) => {
      const at = parsed.positionOf(["rules", i]);
      return { rule, source: `${file}:${at.line}:${at.col}` };
    }),
  };
}

const RULES_KEY = /^rules:[ \t]*(?:#.*)?\r?$/;
const TOP_LEVEL = /^[^\s#-]/;
const RULE_ITEM = /^( *)- +([^\s#])/;

/**
 * A valid file in the plain shape (a block `rules:` list whose items start on their dash's line) is read by js-yaml, which the fleet file's
 * load has already loaded, each rule placed at its item's line; the yaml library, loaded for nothing else in a plan, then stays unloaded.
 * undefined on anything else, or any problem: the positioned load reads it and says where.
 */
function loadLightPolicy(file: string, text: string): { rules: SourcedRule[] } | undefined {
  if (UNSUPPORTED.test(text) || text.includes("\0") || text.includes("!")) return undefined;
  const fast = fastLoad(text);
  if (fast === undefined) return undefined;
  const result = policySchemas().PolicyDocument.safeParse(fast.value);
  if (!result.success) return undefined;
  const places = rulePlaces(text.split("\n"));
  if (places === undefined || places.length !== result.data.rules.length) return undefined;
  return { rules: result.data.rules.map((rule, i) => ({ rule, source: `${file}:${places[i]}` })) };
}

/** "LINE:COL" of each item of the top-level `rules:` list, where its value starts (as the positioned load places it). */
function rulePlaces(lines: readonly string[]): string[] | undefined {
  const at = lines.findIndex((line) => RULES_KEY.test(line));
  if (at < 0) return undefined;
  const places: string[] = [];
  let indent: string | undefined;
  for (let n = at + 1; n < lines.length; n++) {
    const line = lines[n] as string;
    if (TOP_LEVEL.test(line)) break;
    const item = RULE_ITEM.exec(line);
    if (item === null) continue;
    indent ??= item[1];
    if (item[1] === indent) places.push(`${n + 1}:${(item[0] as string).length}`);
  }
  return places;
}

/** zod's issue at its place; a mistyped enum value (enforcement: mandatry) gets a did-you-mean. */
function addIssue(parsed: ParsedFile, issue: $ZodIssue): void {
  if (issue.code === "invalid_value" && issue.values.length > 1) {
    const got = parsed.doc.getIn(issue.path as unknown[]);
    if (typeof got === "string") {
      const hint = didYouMean(got, issue.values.map(String)) || ` (one of: ${issue.values.join(", ")})`;
      parsed.addAtPath(issue.path, `${formatPath(issue.path)}${quoted(got)} is not allowed here${hint}`);
      return;
    }
  }
  parsed.addZodIssue(issue, parsed.value);
}

function readPolicyText(absPath: string, file: string): string {
  try {
    return readRegularText(absPath, POLICY_FILE);
  } catch (error) {
    if (error instanceof FileReadError) throw new UnreadableFileError(file, error.reason);
    throw error;
  }
}

/** "FILE:LINE:COL" back into a problem's place. */
function problemAt(source: string, message: string): FileProblem {
  const match = /^(.*):(\d+):(\d+)$/.exec(source);
  return match === null
    ? { file: source, line: 0, col: 0, message }
    : { file: match[1] as string, line: Number(match[2]), col: Number(match[3]), message };
}

/**
 * The rules a plan is checked against: the policy files' and the fleet's own. A fleet rule named as a policy file's rule is an error naming
 * both places: a fleet may add rules, never disable or weaken one it is given.
 */
export function combineRules(
  policyRules: readonly SourcedRule[],
  fleet: { rules?: readonly PolicyRule[]; sources?: readonly string[] },
): SourcedRule[] {
  const given = new Map(policyRules.map((r) => [r.rule.name, r]));
  const problems: FileProblem[] = [];
  const combined = [...policyRules];
  const seen = new Map<string, string>();
  (fleet.rules ?? []).forEach((rule, i) => {
    const source = fleet.sources?.[i] ?? "the fleet file";
    const fromPolicy = given.get(rule.name);
    const again = seen.get(rule.name);
    if (fromPolicy !== undefined) {
      problems.push(
        problemAt(
          source,
          `policies[${i}]: rule ${quoted(rule.name)} is a rule of the policy file at ${fromPolicy.source} (${fromPolicy.rule.enforcement}); a fleet file may add rules but never disable, downgrade or redefine one of a policy file: give this rule another name`,
        ),
      );
    } else if (again !== undefined) {
      problems.push(
        problemAt(source, `policies[${i}]: rule ${quoted(rule.name)} is already defined at ${again}: give each rule its own name`),
      );
    } else {
      seen.set(rule.name, source);
      combined.push({ rule, source });
    }
  });
  if (problems.length > 0) throw new LoadError([...new Set(problems.map((p) => p.file))].join(", "), problems);
  return combined;
}
