import { delay } from "./delay.js";
import type { Admission, AdmissionRequest, ProviderEngine } from "./engine.js";

/**
 * Sends a call to the engine and admits it once it arrives: synchronously when
 * its arrival delay is 0 (so calls sent in the same tick are decided in the
 * order sent), else after the delay. `keepAlive` as for {@link delay}.
 */
export function arrive(
  engine: ProviderEngine,
  request: Omit<AdmissionRequest, "sentAt">,
  keepAlive: boolean,
): Admission | Promise<Admission> {
  const { sentAt, delayMs } = engine.send(request);
  if (delayMs <= 0) return engine.admit({ ...request, sentAt });
  return delay(delayMs, keepAlive).then(() => engine.admit({ ...request, sentAt }));
}
