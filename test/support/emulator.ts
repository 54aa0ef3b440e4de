/** Fixtures for tests that talk to a real emulator over loopback HTTP. */
import { test as base } from "vitest";
import { startEmulator, type EmulatorOptions, type RunningEmulator } from "../../emulator/index.js";
import { waitFor } from "./wait.js";

/** Fast clock (pending 2 s → 10 ms) and a rate limit that tests not about it never reach. */
export const FAST: EmulatorOptions = { clockSpeed: 200, rateLimit: { limit: 1000, windowMs: 60_000 } };

export interface ApiResult<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export const SSH_KEY = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHVzZXJAZXhhbXBsZQ test@example";

/** A caller with one API key: `call("POST", "/cubes", body)` → /api/v1/spaces/{space}/cubes. */
export class Api {
  constructor(
    readonly url: string,
    readonly key: string | undefined,
    readonly spaceId: string,
  ) {}

  as(key: string | undefined, spaceId = this.spaceId): Api {
    return new Api(this.url, key, spaceId);
  }

  /** Paths starting with "/cubes" or "/webhooks" or "/audit-log" are under the key's space. */
  async call<T = any>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResult<T>> {
    const spaced = /^\/(cubes|webhooks|audit-log)/.test(path) ? `/spaces/${this.spaceId}${path}` : path;
    const response = await fetch(`${this.url}${spaced}`, {
      method,
      headers: {
        ...(this.key === undefined ? {} : { "x-api-key": this.key }),
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text ? (JSON.parse(text) as T) : (undefined as T), headers: response.headers };
  }

  async createCube(overrides: Record<string, unknown> = {}): Promise<any> {
    const result = await this.call("POST", "/cubes", cubeBody(overrides));
    if (result.status !== 201) throw new Error(`create cube: ${result.status} ${JSON.stringify(result.body)}`);
    return result.body.cube;
  }

  async waitForState(cubeId: string, state: string, timeoutMs = 5_000): Promise<any> {
    return waitFor(
      async () => {
        const { body } = await this.call("GET", `/cubes/${cubeId}`);
        return body?.cube?.state === state ? body.cube : undefined;
      },
      { timeoutMs, message: `cube ${cubeId} to be ${state}` },
    );
  }

  async runningCube(overrides: Record<string, unknown> = {}): Promise<any> {
    const cube = await this.createCube(overrides);
    return this.waitForState(cube.id, "running");
  }
}

export function cubeBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { name: "web-1", image: "ubuntu-24.04", resources: { vcpu: 1, ramGb: 1, diskGb: 10 }, sshPublicKey: SSH_KEY, ...overrides };
}

export interface EmulatorFixture {
  emu: RunningEmulator;
  api: Api;
}

export function apiOf(emu: RunningEmulator): Api {
  return new Api(emu.url, emu.apiKey, emu.spaceId);
}

/** `test` with an `emu` (fast emulator) and an `api` (its owner key), closed after the test. */
export const test = base.extend<EmulatorFixture>({
  emu: async ({}, use) => {
    const emu = await startEmulator(FAST);
    await use(emu);
    await emu.close();
  },
  api: async ({ emu }, use) => {
    await use(apiOf(emu));
  },
});
