/**
 * The signing secret of a webhook endpoint, returned once at create: into the file the entry
 * names, readable by its owner only (0600), and nowhere else (not stdout, stderr, plans or logs).
 */
import { writeFileAtomic } from "../../system/files.js";

export async function writeWebhookSecret(secretPath: string, secret: string): Promise<void> {
  await writeFileAtomic(secretPath, `${secret}\n`, { mode: 0o600 });
}
