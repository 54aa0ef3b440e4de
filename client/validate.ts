/** Response validation with the zod schemas of schema/api.ts. */
import type * as z from "zod/mini";
import { InvalidResponseError } from "./errors.js";

interface Issue {
  code: string;
  path: PropertyKey[];
  message: string;
  errors?: Issue[][];
}

/** The most telling issue: inside a union, the branch that got furthest (longest path). */
export function firstIssue(issues: readonly Issue[], prefix: PropertyKey[] = []): { path: PropertyKey[]; message: string } | undefined {
  const issue = issues[0];
  if (issue === undefined) return undefined;
  const path = [...prefix, ...issue.path];
  if (issue.code === "invalid_union" && issue.errors && issue.errors.length > 0) {
    const branches = issue.errors
      .map((branch) => firstIssue(branch, path))
      .filter((b): b is { path: PropertyKey[]; message: string } => b !== undefined);
    branches.sort((a, b) => b.path.length - a.path.length);
    if (branches[0]) return branches[0];
  }
  return { path, message: issue.message };
}

export function parseResponse<S extends z.ZodMiniType>(
  schema: S,
  body: unknown,
  method: string,
  path: string,
  status?: number,
): z.output<S> {
  const result = schema.safeParse(body);
  if (result.success) return result.data;
  const issue = firstIssue(result.error.issues as unknown as Issue[]);
  const where = issue && issue.path.length > 0 ? issue.path.map(String).join(".") : "(body)";
  throw new InvalidResponseError(`Cube API ${method} ${path}: unexpected response body at ${where}: ${issue?.message ?? "invalid"}`, {
    method,
    path,
    ...(status === undefined ? {} : { status }),
  });
}
