/**
 * What zod classic sets up with its first schema and zod/mini never does: English messages (else every issue reads "Invalid
 * input") and the memoizer (for data that refers to itself, as YAML aliases can). Each module that builds zod/mini schemas
 * imports this first, so they parse and word issues exactly as zod classic does.
 *
 * Why zod/mini, the one dialect of the product (test/layout.test.ts, biome.json): every command loads zod's core and none of zod
 * classic (methods on every schema, ~400 exports), and builds its schemas in about half the time; the checks are zod's core
 * checks either way (same messages, paths, JSON Schema).
 */
import { config, memoizer } from "zod/mini";
import en from "zod/v4/locales/en.js";

// As zod classic does: what is already configured (z.config) wins.
if (!config().localeError) config(en());
if (!config().memoizer) config({ memoizer: memoizer() });
