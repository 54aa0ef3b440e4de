/**
 * The local Cube API emulator. CONTRACT (other folders depend on these names): startEmulator() serves the API on
 * 127.0.0.1 under /api/v1 and the admin surface under /__emulator; its handle also exposes the admin operations.
 * Layout: core/ is the machinery every resource uses (store, clock, scheduler, events, request context, auth);
 * resources/ holds one resource per file (its routes with their OpenAPI description, its behaviour, its jobs),
 * listed in resources/all.ts; the files here wire them together (handler, admin surface, server, CLI).
 */
export type * from "./types.js";
export { startEmulator } from "./server.js";
export { createEmulatorApp, type EmulatorApp } from "./app.js";
export { runEmulatorCommand, parseRateLimit, EmulatorCommandError, type EmulatorCommandOptions, type EmulatorCommandIo } from "./cli.js";
