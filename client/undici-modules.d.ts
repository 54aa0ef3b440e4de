declare module "undici/lib/dispatcher/env-http-proxy-agent.js" {
  export { EnvHttpProxyAgent as default } from "undici";
}

declare module "undici/lib/dispatcher/agent.js" {
  export { Agent as default } from "undici";
}

declare module "undici/lib/dispatcher/pool.js" {
  export { Pool as default } from "undici";
}

declare module "undici/lib/dispatcher/dispatcher.js" {
  export { Dispatcher as default } from "undici";
}

declare module "undici/lib/api/index.js" {
  const api: Record<"request" | "stream" | "pipeline" | "upgrade" | "connect", unknown>;
  export default api;
}
