/**
 * The signing secret of a webhook endpoint, returned once at create: into the file the entry
 * names, readable by its owner only (0600), and nowhere else (not stdout, stderr, plans or logs).
 */
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { dirname } from "node:path";

export async function writeWebhookSecret(secretPath: string, secret: string): Promise<void> {
  await mkdir(dirname(secretPath), { recursive: true });
  await writeFile(secretPath, `${secret}\n`, { encoding: "utf8", mode: 0o600 });
  // mode applies only when the file is created: a replacement rewrites an existing one.
  await chmod(secretPath, 0o600);
}
