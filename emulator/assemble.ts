/** Builds a running emulator core: resources' jobs registered, their start hooks run. */
import { createAdmin } from "./admin.js";
import { Core } from "./core/core.js";
import { createHandler, type Handle } from "./handler.js";
import { RESOURCES } from "./resources/all.js";
import { createStorageHandler, type StorageHandler } from "./storage.js";
import type { EmulatorAdmin, EmulatorOptions } from "./types.js";

export interface AssembledEmulator {
  core: Core;
  admin: EmulatorAdmin;
  handle: Handle;
  /** The /__storage byte streams (presigned URLs). */
  storage: StorageHandler;
}

export function assembleEmulator(options: EmulatorOptions = {}): AssembledEmulator {
  const core = new Core(options);
  for (const resource of RESOURCES) {
    for (const job of resource.jobs ?? []) core.registerJob(job.kind, (stored) => job.run(core, stored));
  }
  for (const resource of RESOURCES) resource.start?.(core);
  core.start();
  const admin = createAdmin(core);
  return { core, admin, handle: createHandler(core, admin), storage: createStorageHandler(core) };
}
