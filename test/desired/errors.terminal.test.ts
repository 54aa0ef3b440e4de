/**
 * Whether a watch stops retrying is decided where an error is raised (issue 33), as controller-runtime's TerminalError: a bad
 * file, a refused commit, a 4xx the API will answer again the same way are terminal; a git or network outage is not.
 */
import { expect, test } from "vitest";
import { BadRequestError, ConflictError, TerminationProtectedError, UnprocessableError } from "../../client/errors.js";
import { GitSourceError, LoadError, SourceError, UntrustedCommitError } from "../../desired/index.js";
import { StepError } from "../../engine/errors.js";

test("each error says whether trying again can fix it", () => {
  const terminal = (e: unknown): boolean => (e as { terminal?: boolean }).terminal === true;
  expect(terminal(new LoadError("f.yaml", []))).toBe(true);
  expect(terminal(new SourceError("file_unreadable", () => "gone"))).toBe(true);
  expect(terminal(new UntrustedCommitError("0123456789abcdef", "signers", "it is not signed"))).toBe(true);
  expect(terminal(new GitSourceError(() => "git fetch failed"))).toBe(false);
  expect(terminal(new BadRequestError("bad"))).toBe(true);
  expect(terminal(new UnprocessableError("no"))).toBe(true);
  expect(terminal(new TerminationProtectedError("protected", {}, { id: "c1" } as never))).toBe(true);
  expect(terminal(new ConflictError("busy"))).toBe(false);
  expect(terminal(new StepError("missing_secret", "unset", true))).toBe(true);
  expect(terminal(new StepError("unknown_cube", "later"))).toBe(false);
});
