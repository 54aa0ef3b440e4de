/** What a storage (presigned URL) said when it refused: its `{error}` text, or the start of its body. */
export function storageErrorText(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: unknown };
    if (typeof parsed.error === "string") return parsed.error;
  } catch {
    // not JSON
  }
  return body.slice(0, 200) || "no details";
}
