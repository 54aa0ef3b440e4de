/** Small value helpers for JSON-like outputs. */
import { createHash } from "node:crypto";

export type Props = Record<string, unknown>;

export function sha256(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}

export function digestOrNull(text: string | undefined | null): string | null {
  return typeof text === "string" ? sha256(text) : null;
}

/** Pulumi passes absent optional inputs as missing or null: treat both as "not declared". */
export function declared<T>(value: T | null | undefined): T | undefined {
  return value === null ? undefined : value;
}

export const str = (value: unknown): string | undefined => (typeof value === "string" ? value : undefined);
export const num = (value: unknown): number | undefined => (typeof value === "number" ? value : undefined);
export const bool = (value: unknown): boolean | undefined => (typeof value === "boolean" ? value : undefined);
