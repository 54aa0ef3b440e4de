/** Every resource the emulator serves, in the order their routes are matched and documented. */
import type { Resource } from "../core/resource.js";
import { backupSharesResource } from "./backup-shares.js";
import { backupsResource } from "./backups.js";
import { catalogResource } from "./catalog.js";
import { cliAuthResource } from "./cli-auth.js";
import { cubesResource } from "./cubes.js";
import { domainsResource } from "./domains.js";
import { importsResource } from "./imports.js";
import { powerResource } from "./power.js";
import { snapshotsResource } from "./snapshots.js";
import { spaceResource } from "./space.js";
import { tcpResource } from "./tcp.js";
import { webhooksResource } from "./webhooks.js";

export const RESOURCES: readonly Resource[] = [
  catalogResource,
  cliAuthResource,
  spaceResource,
  importsResource,
  cubesResource,
  powerResource,
  tcpResource,
  domainsResource,
  snapshotsResource,
  webhooksResource,
  backupsResource,
  backupSharesResource,
];
