/** The emulator without a socket: `app.request()` answers like fetch (for unit tests). */
import { assembleEmulator } from "./assemble.js";
import type { EmulatorAdmin, EmulatorOptions } from "./types.js";

export interface EmulatorApp {
  apiKey: string;
  spaceId: string;
  admin: EmulatorAdmin;
  /** A path such as "/api/v1/regions" or a full URL; an injected reset rejects like fetch. */
  request(input: string | Request, init?: RequestInit & { clientIp?: string }): Promise<Response>;
  close(): void;
}

export function createEmulatorApp(options: EmulatorOptions = {}): EmulatorApp {
  const { core, admin, handle } = assembleEmulator(options);
  return {
    apiKey: core.apiKey,
    spaceId: core.spaceId,
    admin,
    close: () => core.close(),
    async request(input, init) {
      const request = new Request(typeof input === "string" ? new URL(input, "http://emulator.local") : input, init);
      const url = new URL(request.url);
      const response = await handle({
        method: request.method.toUpperCase(),
        path: url.pathname,
        query: url.searchParams,
        headers: Object.fromEntries(request.headers),
        body: await request.text(),
        clientIp: init?.clientIp ?? "127.0.0.1",
      });
      if (response.abort) throw new TypeError("fetch failed: connection closed without a response (injected fault)");
      const body = response.text ?? (response.body === undefined ? null : JSON.stringify(response.body));
      const headers = { ...(body && response.text === undefined ? { "content-type": "application/json" } : {}), ...response.headers };
      return new Response(body, { status: response.status, headers });
    },
  };
}
