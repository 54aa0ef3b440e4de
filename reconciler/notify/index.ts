/** Notifications (`--notify`): signed JSON or Slack events about drift, failed applies, broken commits, reverted rollouts and held changes. */
export { NOTIFY_EVENT_VERSION, type NotifyEvent, type NotifyEventType, type NotifySource, type EventOrigin } from "./event.js";
export { Notifier, resolveNotify, checkNotifyUrl, type NotifyConfig, type NotifySettings } from "./notifier.js";
export { NotifyObserver } from "./watch-observer.js";
export { notifySource } from "./source.js";
export { SIGNATURE_HEADER, signatureHeader } from "./sign.js";
export type { DeliveryCounters, NotifyFormat } from "./delivery.js";
export { ApplyNotices, notifyDrift } from "./one-shot.js";
