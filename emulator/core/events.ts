/** Domain events (cube.running, …) raised by resources, which know nothing of the subscribers (webhook deliveries). */
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
