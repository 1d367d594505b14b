import { EfficiencyWatch } from "./efficiency-watch.js";
import type { Estimate } from "./limits.js";
import type { Meters } from "./meters.js";
import type { QuotaHold } from "./quotas.js";
import { AdmittedCall, type CallHost } from "./reservation.js";

/** The calls admitted and not yet released, and the order of admissions. */
export class Ledger {
  /** Admissions so far: orders responses against admissions. */
  admissions = 0;
  /** Admitted calls not yet released. */
  inFlight = 0;
  /** Of those, the ones whose request counts can still be given back (`acquire`, or `refundOnError`). */
  refundableInFlight = 0;
  private readonly watch: EfficiencyWatch;

  constructor(
    private readonly host: CallHost,
    private readonly meters: Meters,
  ) {
    this.watch = new EfficiencyWatch(host.warn, host.now());
  }

  /**
   * Opens the reservation of a request of class `priority` and `tenant` admitted at monotonic `now`
   * (`marks`, `lease`: a shared store's), queued at `queuedAt` (`now`: admitted at once), holding `budget` on the
   * quotas.
   */
  open(
    estimate: Estimate,
    signal: AbortSignal | undefined,
    now: number,
    refundable: boolean,
    priority: string,
    tenant: string | undefined,
    marks?: readonly number[],
    lease?: string,
    queuedAt = now,
    budget?: QuotaHold,
  ): AdmittedCall {
    this.inFlight++;
    if (refundable) this.refundableInFlight++;
    const { list, split } = this.meters;
    const call = new AdmittedCall(
      this.host,
      list,
      estimate,
      signal,
      ++this.admissions,
      now,
      split,
      refundable,
      priority,
      tenant,
      marks,
      lease,
      budget,
    );
    if (now >= this.watch.nextCheckAt) this.watch.check(now, list);
    this.host.events.admitted?.emit({ estimate, priority, tenant, waitMs: now - queuedAt, inFlight: this.inFlight });
    return call;
  }

  /** A reservation was released; `refundable` as it was admitted. */
  closed(refundable: boolean): void {
    this.inFlight--;
    if (refundable) this.refundableInFlight--;
  }
}
