/** Notifications (`--notify`): signed JSON or Slack events about drift, failed applies, broken commits, reverted rollouts and held changes. */
export { Notifier, resolveNotify, type NotifySettings } from "./notifier.js";
export { NotifyObserver } from "./watch-observer.js";
export { notifySource } from "./source.js";
export type { DeliveryCounters } from "./delivery.js";
export { ApplyNotices, notifyDrift } from "./one-shot.js";
