/**
 * The signing secrets `watch --listen` checks deliveries against: read from the file's webhook secretFiles at start and after each round (its apply
 * may have written a new one), never per delivery, so an unsigned POST costs a signature check and nothing more.
 */
import { readRegularTextAsync } from "../../system/files.js";

/** A secret file holds one line; anything larger is not a secret cubeform wrote. */
const MAX_SECRET_BYTES = 4096;

export class WebhookSecrets {
  private secrets: readonly string[] = [];
  private paths: readonly string[] = [];

  current(): readonly string[] {
    return this.secrets;
  }

  /** Re-reads the secret files (of these paths, when given: the endpoints of the file as last loaded). */
  async refresh(paths?: readonly string[]): Promise<void> {
    if (paths !== undefined) this.paths = paths;
    const texts = await Promise.all(this.paths.map(readSecret));
    this.secrets = texts.filter((text) => text !== "");
  }
}

/** The file's one line, or "" when it is missing, not a regular file or too large to be a secret. */
function readSecret(path: string): Promise<string> {
  return readRegularTextAsync(path, { maxBytes: MAX_SECRET_BYTES, what: "a webhook secret file" }).then(
    (text) => text.trim(),
    () => "",
  );
}
