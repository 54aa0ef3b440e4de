/**
 * Memory of applied secrets. The API never returns a basic-auth password, so a plan cannot see
 * that the value in the environment was rotated. After apply sends one, a salted digest of it
 * (scrypt, a random salt per entry) is kept in .cubeform/secrets.json beside the journal; a
 * later plan compares the environment's value with it and plans an update when they differ.
 * Without that memory (a fresh checkout, a CI job without a cache) nothing is known: no update
 * is planned for the password until it is sent again (with any change to the domain's
 * basic-auth user, or after the memory is restored).
 */
import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import { StateFile } from "./state-file.js";

interface Entry {
  salt: string;
  digest: string;
  env: string;
  appliedAt: string;
}

const isEntry = (entry: unknown): entry is Entry => typeof (entry as Partial<Entry> | null)?.salt === "string" && typeof (entry as Entry).digest === "string";

export interface SecretSlot {
  spaceId: string;
  cubeName: string;
  hostname: string;
}

const slotKey = (slot: SecretSlot): string => `${slot.spaceId} ${slot.cubeName} ${slot.hostname}`;

function digestOf(value: string, salt: Buffer): Buffer {
  return scryptSync(value, salt, 32);
}

export class SecretMemory {
  private readonly file: StateFile<Entry>;

  constructor(path: string) {
    this.file = new StateFile(path, isEntry);
  }

  /** The value was sent to the API for this domain. */
  async remember(slot: SecretSlot, env: string, value: string): Promise<void> {
    await this.file.update((entries) => {
      const salt = randomBytes(16);
      entries[slotKey(slot)] = { salt: salt.toString("base64"), digest: digestOf(value, salt).toString("base64"), env, appliedAt: new Date().toISOString() };
    });
  }

  /** true: the value differs from the one last applied; false: same; undefined: nothing is remembered. */
  async differs(slot: SecretSlot, value: string): Promise<boolean | undefined> {
    const entry = (await this.file.entries())[slotKey(slot)];
    if (entry === undefined) return undefined;
    const expected = Buffer.from(entry.digest, "base64");
    const actual = digestOf(value, Buffer.from(entry.salt, "base64"));
    return expected.length !== actual.length || !timingSafeEqual(expected, actual);
  }
}
