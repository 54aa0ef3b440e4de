/** A webhook endpoint's signing secret (returned once, at create) goes to the file the entry names (0600), and nowhere else. */
import { writeFileAtomic } from "../../system/files.js";

export async function writeWebhookSecret(secretPath: string, secret: string): Promise<void> {
  await writeFileAtomic(secretPath, `${secret}\n`, { mode: 0o600 });
}
