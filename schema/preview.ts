/** The `preview:` block of a fleet file: how `cubeform preview up` makes a small copy of the fleet per pull request. zod/mini like desired.ts. */
import "./zod-english.js";
import * as z from "zod/mini";
import { DesiredResources } from "./common.js";

const HostnameTemplate = z.string().check(
  z.minLength(1),
  z.maxLength(253),
  z.refine(
    (s) => s.includes("{name}") && s.includes("{id}"),
    'must contain {name} and {id} (each preview and each of its cubes needs a hostname of its own), e.g. "{name}-{id}.preview.example.com"',
  ),
  z.refine(
    (s) => /^[a-z0-9.*{}-]+$/.test(s.replaceAll("{name}", "").replaceAll("{id}", "")) && !/\{(?!name\}|id\})/.test(s),
    "may use only {name} and {id} as placeholders, around lowercase letters, digits, hyphens and dots",
  ),
);

export const PreviewBlock = z.strictObject({
  /** The space previews are created in; default: the fleet's own. */
  space: z.optional(z.string().check(z.minLength(1))),
  /** Each cube's first domain becomes this hostname in a preview; without it previews have no domains. */
  hostname: z.optional(HostnameTemplate),
  /** A preview whose monthly cost (GET /pricing) would pass this is refused before anything is created. */
  maxMonthly: z.optional(z.number().check(z.positive())),
  /** At most this many members of each group of replicas in a preview. */
  replicas: z.optional(z.number().check(z.int(), z.minimum(1))),
  /** Every preview cube's resources (smaller than the fleet's, usually). */
  resources: z.optional(DesiredResources),
});
export type PreviewBlock = z.infer<typeof PreviewBlock>;
