/**
 * One abort listener per caller signal, however many requests share it. A
 * service often hands one long-lived signal (its shutdown, a user's session)
 * to every call: a listener per queued or in-flight request would put
 * hundreds on it (Node warns past ten, and removing one scans them all).
 * Subscribers are linked through their own fields, so subscribing allocates
 * nothing; the listener goes when the last subscriber leaves.
 */

/** Something that reacts to a caller's abort, linked into that signal's list. */
export interface AbortSubscriber {
  handleEvent(): void;
  abortPrev: AbortSubscriber | undefined;
  abortNext: AbortSubscriber | undefined;
}

/** The one listener on a signal: calls every subscriber in turn. */
class Fanout {
  first: AbortSubscriber | undefined = undefined;

  handleEvent(): void {
    for (let sub = this.first; sub;) {
      // A subscriber usually leaves when called: step past it first.
      const next = sub.abortNext;
      sub.handleEvent();
      sub = next;
    }
  }
}

const fanouts = new WeakMap<AbortSignal, Fanout>();

/** `subscriber` hears `signal`'s abort until {@link unsubscribe}. */
export function subscribe(signal: AbortSignal, subscriber: AbortSubscriber): void {
  let fanout = fanouts.get(signal);
  if (!fanout) {
    fanout = new Fanout();
    fanouts.set(signal, fanout);
    signal.addEventListener("abort", fanout);
  }
  subscriber.abortPrev = undefined;
  subscriber.abortNext = fanout.first;
  if (fanout.first) fanout.first.abortPrev = subscriber;
  fanout.first = subscriber;
}

/** `subscriber` no longer hears `signal`; the last one to leave takes the listener off. */
export function unsubscribe(signal: AbortSignal, subscriber: AbortSubscriber): void {
  const fanout = fanouts.get(signal);
  if (!fanout) return;
  const { abortPrev: prev, abortNext: next } = subscriber;
  if (prev) prev.abortNext = next;
  else if (fanout.first === subscriber) fanout.first = next;
  else return; // not subscribed
  if (next) next.abortPrev = prev;
  subscriber.abortPrev = subscriber.abortNext = undefined;
  if (fanout.first) return;
  signal.removeEventListener("abort", fanout);
  fanouts.delete(signal);
}
