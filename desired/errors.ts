/** Problems of loading desired state: each with a stable `code` and the exit code the CLI maps it to. */
import type { SourceRevision } from "../engine/types.js";

/** A problem in a desired-state file, at a position a person can jump to. */
export interface FileProblem {
  file: string;
  /** 1-based; 0 when the position is unknown. */
  line: number;
  col: number;
  message: string;
}

export function formatProblem(p: FileProblem): string {
  return p.line > 0 ? `${p.file}:${p.line}:${p.col}: ${p.message}` : `${p.file}: ${p.message}`;
}

/** What -f names cannot be read (no such file, a directory without YAML files, stdin twice). */
export class SourceError extends Error {
  readonly exitCode = 1;
  constructor(readonly code: "file_unreadable" | "invalid_option" | "untrusted_commit", message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** A commit refused by the allowed signers: the source names it (nothing of it was checked out). */
export class UntrustedCommitError extends SourceError {
  constructor(readonly commit: string, message: string) {
    super("untrusted_commit", message);
  }
}

/** A desired-state file that -f names (or a directory holds) and that is not read: missing, not a regular file, too large. */
export class UnreadableFileError extends SourceError {
  constructor(readonly file: string, readonly reason: string, hint?: string) {
    super("file_unreadable", `cannot read ${file}: ${reason}${hint === undefined ? "" : ` (${hint})`}`);
  }
}

/** Every problem found while loading the file; nothing was sent to the API. */
export class LoadError extends Error {
  readonly code = "invalid_file";
  readonly exitCode = 1;
  readonly problems: FileProblem[];
  constructor(file: string, problems: FileProblem[]) {
    const n = problems.length;
    const verb = file.includes(", ") ? "are" : "is";
    super(`${visible(file)} ${verb} not valid (${n} problem${n === 1 ? "" : "s"}); nothing was sent to the API`);
    this.name = new.target.name;
    // In file order, so a reader can walk down each file (problems of unknown position first).
    const files = [...new Set(problems.map((p) => p.file))];
    this.problems = [...problems].sort((a, b) => files.indexOf(a.file) - files.indexOf(b.file) || a.line - b.line || a.col - b.col);
  }
}

/** The problems of a fleet at a commit of a repository (--repo): which commit failed, for a script reading JSON. */
export class RepoLoadError extends LoadError {
  constructor(file: string, problems: FileProblem[], readonly source: SourceRevision) {
    super(file, problems);
  }
}

/** A place in a file (1-based). */
export interface Position {
  line: number;
  col: number;
  /** Set when several files were loaded: the one this position is in. */
  file?: string;
}

/**
 * What a terminal shows as nothing or as something else: controls (a form feed, a NUL), format characters (a zero-width space,
 * a bidi override), separators other than the space, and the code points Unicode says to ignore (a Hangul filler).
 */
const INVISIBLE = /[\p{C}\p{Z}\p{Default_Ignorable_Code_Point}]/u;
const SHORT_ESCAPES: Record<string, string> = { "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f", "\r": "\\r" };

/** `text` with each invisible character written as an escape (\f, \u200B), so two keys that print alike can be told apart. */
export function visible(text: string): string {
  let shown = "";
  for (const char of text) shown += char !== " " && INVISIBLE.test(char) ? escapeOf(char) : char;
  return shown;
}

/** `"text"`, escaped like visible() and with its quotes and backslashes escaped. */
export function quoted(text: string): string {
  return `"${visible(text.replace(/[\\"]/g, (c) => `\\${c}`))}"`;
}

function escapeOf(char: string): string {
  const short = SHORT_ESCAPES[char];
  if (short !== undefined) return short;
  const hex = (char.codePointAt(0) as number).toString(16).toUpperCase();
  return hex.length <= 4 ? `\\u${hex.padStart(4, "0")}` : `\\u{${hex}}`;
}

/** The repository could not be fetched or checked out (unreachable, no such ref, a timeout): the round fails, nothing is applied. */
export class GitSourceError extends Error {
  readonly code = "git_failed";
  readonly exitCode = 1;
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}
