import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    // Provider tests load the built package (dist): vitest must not transform it, or the
    // Pulumi closure serializer sees rewritten dynamic imports.
    server: { deps: { external: [/\/dist\//] } },
  },
});
