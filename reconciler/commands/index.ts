/**
 * Every command of the CLI, one line each. A command file exports `register(program, io)`;
 * commands appear in --help in alphabetical order.
 */
export * as validate from "./validate.js";
export * as plan from "./plan.js";
export * as apply from "./apply.js";
export * as drift from "./drift.js";
export * as emulator from "./emulator.js";
export * as demo from "./demo.js";
export * as dns from "./dns.js";
export * as importState from "./import.js";
export * as watch from "./watch.js";
