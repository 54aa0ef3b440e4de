export * from "./api.js";
export * from "./desired.js";
