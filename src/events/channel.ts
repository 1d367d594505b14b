/**
 * The listeners of one event. The listener array is replaced, never changed in place, so a listener that
 * removes itself (or adds another) while the event runs does not disturb the loop.
 */
export class Channel<T> {
  private listeners: readonly ((event: T) => void)[] = [];

  constructor(
    private readonly name: string,
    /** Where a listener's error goes: it must not break admission. */
    private readonly warn: (warning: Error) => void,
  ) {}

  get empty(): boolean {
    return this.listeners.length === 0;
  }

  add(listener: (event: T) => void): void {
    this.listeners = [...this.listeners, listener];
  }

  /** Removes one registration of `listener`; the latest one, as a later `add` may repeat it. */
  remove(listener: (event: T) => void): void {
    const i = this.listeners.lastIndexOf(listener);
    if (i >= 0) this.listeners = this.listeners.filter((_, j) => j !== i);
  }

  emit(event: T): void {
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch (error) {
        this.warn(new Error(`a "${this.name}" listener threw; the limiter carries on`, { cause: error }));
      }
    }
  }
}
