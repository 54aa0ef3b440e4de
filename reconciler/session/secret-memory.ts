/**
 * The API never returns a basic-auth password: after apply sends one, a salted scrypt digest of it is kept in .cubeform/secrets.json, and a later
 * plan updates the domain when the environment's value no longer matches (without that file no rotation can be seen).
 */
import { nodeCrypto } from "../../system/builtins.js";
import { StateFile } from "./state-file.js";

type Entry = { salt: string; digest: string; env: string; appliedAt: string };

const isEntry = (entry: unknown): entry is Entry =>
  typeof (entry as Partial<Entry> | null)?.salt === "string" && typeof (entry as Entry).digest === "string";

export type SecretSlot = { spaceId: string; cubeName: string; hostname: string };

const slotKey = (slot: SecretSlot): string => `${slot.spaceId} ${slot.cubeName} ${slot.hostname}`;

const digestOf = (value: string, salt: Buffer): Buffer => nodeCrypto().scryptSync(value, salt, 32);

export class SecretMemory {
  private readonly file: StateFile<Entry>;

  constructor(path: string) {
    this.file = new StateFile(path, isEntry);
  }

  /** The value was sent to the API for this domain. */
  async remember(slot: SecretSlot, env: string, value: string): Promise<void> {
    await this.file.update((entries) => {
      const salt = nodeCrypto().randomBytes(16);
      entries[slotKey(slot)] = {
        salt: salt.toString("base64"),
        digest: digestOf(value, salt).toString("base64"),
        env,
        appliedAt: new Date().toISOString(),
      };
    });
  }

  /** true: the value differs from the one last applied; false: same; undefined: nothing is remembered. */
  async differs(slot: SecretSlot, value: string): Promise<boolean | undefined> {
    const entry = (await this.file.entries())[slotKey(slot)];
    if (entry === undefined) return undefined;
    const expected = Buffer.from(entry.digest, "base64");
    const actual = digestOf(value, Buffer.from(entry.salt, "base64"));
    return expected.length !== actual.length || !nodeCrypto().timingSafeEqual(expected, actual);
  }
}
