/**
 * What zod classic sets up when it builds its first schema and zod/mini never does: English
 * messages (without them every issue reads "Invalid input") and the memoizer (how a parse
 * handles data that refers to itself, as YAML aliases can). For the schemas written with
 * zod/mini (common.ts, desired.ts, the CLI's option schemas), so they parse and word issues
 * exactly as zod classic does. Each module that builds zod/mini schemas imports this first.
 *
 * Why zod/mini there: `cubeform validate` then loads zod's core and none of zod classic (its
 * methods on every schema, its namespace of ~400 exports), and builds its schemas in about half
 * the time. The checks are zod's core checks either way, so messages, issue paths and the JSON
 * Schema are the same.
 */
import { config, memoizer } from "zod/mini";
import en from "zod/v4/locales/en.js";

// As zod classic does: what is already configured (z.config) wins.
if (!config().localeError) config(en());
if (!config().memoizer) config({ memoizer: memoizer() });
