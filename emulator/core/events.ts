/**
 * Domain events (cube.running, snapshot.created, …) raised by resources. Whoever cares
 * subscribes (the webhooks resource turns them into deliveries); a resource raising an event
 * knows nothing about its subscribers.
 */
export type EventListener = (spaceId: string, event: string, data: unknown, at: number) => void;

export class EventBus {
  private readonly listeners: EventListener[] = [];

  subscribe(listener: EventListener): void {
    this.listeners.push(listener);
  }

  emit(spaceId: string, event: string, data: unknown, at: number): void {
    for (const listener of this.listeners) listener(spaceId, event, data, at);
  }
}
