import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Many tests wait on sockets and child processes; vitest's default (cores - 1) leaves one
    // worker on a 2-core machine and the suite mostly idle.
    maxWorkers: 4,
    // Each worker process runs file after file without a fresh module graph: loading vitest and our
    // modules again for every file took more than the tests themselves (import 142 s of a 306 s run).
    // Tests therefore restore whatever process-wide state they change.
    isolate: false,
    // Provider tests load the built package (dist): vitest must not transform it, or the
    // Pulumi closure serializer sees rewritten dynamic imports.
    server: { deps: { external: [/\/dist\//] } },
  },
});
