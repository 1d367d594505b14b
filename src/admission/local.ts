import type { LocalBuckets } from "../buckets/local-buckets.js";
import type { Blocker } from "../buckets/types.js";
import { costOf } from "../core/amounts.js";
import type { WaitTimeoutError } from "../core/errors.js";
import type { Estimate } from "../core/limits.js";
import type { AdmittedCall } from "../core/reservation.js";
import type { AdmissionLevels, AdmissionParts } from "./admission.js";
import type { PoolOrder, PoolSeat } from "./pool-order.js";
import { QueuedAdmission } from "./queued.js";
import { FITS, HOLDS, NEVER, SPENT } from "../core/quotas.js";
import { StartupProbe } from "./startup-probe.js";
import type { Band, Lane } from "./scheduler.js";
import type { Waiter } from "./waiter.js";

/** Admission over buckets in this process: synchronous, so admitting allocates nothing but the reservation. */
export class LocalAdmission extends QueuedAdmission implements PoolSeat {
  /** Set until the first news of the key at start-up. */
  private probe: StartupProbe | undefined;
  private pumping = false;
  /** After a draw on a group's shared buckets was refused for an older member's head: ms until they hold both. */
  private poolHoldMs = 0;
  /** What the quotas said of the last take (`FITS` without quotas). */
  private quotaVerdict = FITS;

  constructor(
    parts: AdmissionParts,
    private readonly buckets: LocalBuckets,
    /** Whether to send a few calls first and hold the burst until news of the key (see {@link StartupProbe}). */
    probe: boolean,
    /** A limiter group's order on its shared buckets (which `buckets` holds), for a member of one. */
    private readonly order?: PoolOrder,
  ) {
    super(parts);
    if (probe) this.probe = new StartupProbe(buckets);
  }

  configure(): void {
    this.buckets.configure(this.meters.dimensions, this.meters.concurrency);
  }

  tryNow(estimate: Estimate, rank: number): AdmittedCall | undefined {
    return this.admitNow(estimate, undefined, true, rank, undefined);
  }

  give(name: string, amount: number, chargedAt: number): void {
    this.buckets.give(name, amount, chargedAt);
  }

  arrived(name: string, amount: number, chargedAt: number): void {
    this.buckets.arrived(name, amount, chargedAt);
  }

  levels(): AdmissionLevels {
    return {
      dimensions: this.buckets.snapshot(),
      slotsInUse: this.buckets.slotsInUse(),
      arrivalAllowanceMs: this.buckets.arrivalAllowanceMs(this.clock.now()),
    };
  }

  override heard(): void {
    this.endProbe();
  }

  override released(lease: string | undefined): void {
    this.endProbe();
    this.buckets.releaseSlot();
    super.released(lease);
  }

  override admitWhatFits(): void {
    super.admitWhatFits();
    this.order?.changed(this);
  }

  /**
   * A lower bound on the wait now, in ms, for `estimate` in class `rank` (0 the most urgent) and `tenant`:
   * behind what is queued that goes before it, the pauses, the levels as they are.
   */
  predictedWaitMs(estimate: Estimate, rank: number, tenant: string | undefined): number {
    const held = this.pausedUntil - this.clock.now();
    const band = this.queue.bands[rank]!;
    const lane = this.queue.existingLane(rank, tenant);
    const levels = this.buckets.blocker(estimate, band.reserve).waitMs;
    return Math.max(held, this.predictWait(estimate, band, lane).waitMs, levels === Infinity ? 0 : levels);
  }

  ownWaitMs(waiter: Waiter): number {
    const held = Math.max(this.pausedUntil, waiter.notBefore) - this.clock.now();
    const own = this.buckets.blocker(waiter.estimate, waiter.reserve, true).waitMs;
    // A missing slot may free at any moment: no wait to count on.
    return Math.max(held, own === Infinity ? 0 : own);
  }

  retry(): void {
    this.pump();
  }

  protected pauseDimension(name: string, until: number): void {
    this.buckets.pause(name, until);
  }

  protected unpause(names: readonly string[] | undefined): void {
    this.buckets.unpause(names);
  }

  protected takeNow(estimate: Estimate, now: number, reserve: number, tenant: string | undefined): true | undefined {
    if (this.probe?.expired(now)) this.endProbe();
    return this.take(estimate, now, reserve, tenant) || undefined;
  }

  protected serve(first: Waiter): void {
    if (this.pumping) return;
    this.pumping = true;
    try {
      for (let head: Waiter | undefined = first; head; head = this.queue.head) {
        const now = this.clock.now();
        if (this.probe?.expired(now)) this.endProbe();
        this.quotaVerdict = FITS;
        if (this.paused() || head.notBefore > now || !this.take(head.estimate, now, head.reserve, head.lane.tenant)) {
          if (this.quotaVerdict !== FITS && this.refuseHead(head)) continue;
          this.order?.waiting(this, head);
          this.scheduleHead(head);
          return;
        }
        this.admit(head, now);
      }
      this.headAlarm.clear();
    } finally {
      this.pumping = false;
    }
  }

  protected override headArrived(head: Waiter): void {
    this.quotaVerdict = FITS; // not asked for this head yet: the alarm that serves it will
    this.order?.waiting(this, head);
    this.scheduleHead(head);
  }

  protected override opened(_estimate: Estimate, now: number): void {
    this.probe?.admitted(now);
  }

  protected override left(waiter: Waiter): void {
    this.order?.left(this, waiter);
  }

  protected blocker(waiter: Waiter): Blocker {
    const quotas = this.quotas;
    if (quotas) {
      const verdict = quotas.verdict(waiter.estimate, waiter.lane.tenant);
      if (verdict === SPENT) {
        const { name, waitMs } = quotas.waitMs();
        return { dimension: name, waitMs };
      }
      if (verdict === HOLDS) return { dimension: quotas.holdName(), waitMs: Infinity };
    }
    return this.buckets.blocker(waiter.estimate, waiter.reserve);
  }

  /**
   * The head did not fit the quotas: refuses it (returns true) when it never will, or when its period cannot hold
   * it and it does not wait for the next.
   */
  private refuseHead(head: Waiter): boolean {
    const verdict = this.quotaVerdict;
    if (verdict !== NEVER && !(verdict === SPENT && (head.onQuota ?? this.onQuota) === "reject")) return false;
    this.fail(head, this.quotas!.refusal());
    return true;
  }

  /** Refuses at once a request whose wait, at the least, is longer than `maxWaitMs`. */
  protected override knownTooLong(
    estimate: Estimate,
    maxWaitMs: number,
    rank: number,
    tenant: string | undefined,
  ): WaitTimeoutError | undefined {
    const levels = this.predictWait(estimate, this.queue.bands[rank]!, this.queue.existingLane(rank, tenant));
    // A 429's pause holds until its time whatever comes back (a probed one may end sooner: not counted).
    const paused = this.buckets.pausedFor(estimate);
    const predicted = paused.waitMs > levels.waitMs && !this.holds.probing ? paused : levels;
    return predicted.waitMs > maxWaitMs
      ? this.waitTimeout(predicted.dimension, predicted.waitMs, maxWaitMs)
      : undefined;
  }

  private scheduleHead(head: Waiter): void {
    const now = this.clock.now();
    const hold = Math.max(this.pausedUntil, head.notBefore);
    // Infinity: only a concurrency slot (or a quota's holds) is missing, and a release will pump. A probe's hold
    // ends on its own too.
    const waitMs = Math.max(
      this.buckets.blocker(head.estimate, head.reserve).waitMs,
      this.poolHoldMs,
      this.quotaWaitMs(),
    );
    const at = hold > now ? hold : now + waitMs;
    this.headAlarm.set(this.probe ? Math.min(at, this.probe.holdEnds) : at);
  }

  /** Ms until the quotas may hold the head that the last take refused: its period's turn, or a release (Infinity). */
  private quotaWaitMs(): number {
    const verdict = this.quotaVerdict;
    if (verdict === FITS) return 0;
    return verdict === SPENT ? this.quotas!.waitMs().waitMs : Infinity;
  }

  /**
   * Takes `estimate` of `tenant` from the quotas and the buckets, leaving `reserve` of each bucket (a headroom), if
   * all hold it and, in a group, no older member's head waits for it: from all of them or from none.
   */
  private take(estimate: Estimate, now: number, reserve: number, tenant: string | undefined): boolean {
    const quotas = this.quotas;
    if (quotas) {
      this.quotaVerdict = quotas.verdict(estimate, tenant);
      if (this.quotaVerdict !== FITS) return false;
    }
    if (this.order) {
      this.poolHoldMs = this.order.holdMs(this, estimate, now);
      if (this.poolHoldMs > 0) return false;
    }
    if (!this.buckets.take(estimate, now, reserve)) return false;
    if (quotas) this.quotaHold = quotas.take();
    return true;
  }

  /** News of the key (headers, or a call done), or none in time: the start-up probe is over. */
  private endProbe(): void {
    if (!this.probe) return;
    this.probe.end();
    this.probe = undefined;
  }

  /**
   * A lower bound on the wait for `estimate`, in class `band` and `lane` (`undefined`: a tenant's lane not
   * made yet), behind everything queued that cannot time out and must go first: as if the held reservations
   * gave back, right now, all they still can (their tokens down to zero; a
   * request only where it may be refunded).
   */
  private predictWait(
    estimate: Estimate,
    band: Band<Waiter>,
    lane: Lane<Waiter> | undefined,
  ): { dimension: string; waitMs: number } {
    const levels = this.buckets.snapshot();
    const { rank, reserve, busy } = band;
    // Its own class goes first only while that is one FIFO: other tenants' waiters may come after it.
    const ownClass = busy.size === 0 || (lane !== undefined && busy.size === 1 && busy.top === lane);
    const classes = ownClass ? rank + 1 : rank;
    let dimension = "queue";
    let waitMs = 0;
    for (const meter of this.meters.list) {
      const d = meter.dimension;
      const level = levels[d.name]?.available ?? d.capacity;
      const returnable = d.unit === "requests" ? this.ledger.refundableInFlight : meter.held;
      const optimistic = Math.min(d.capacity, level + returnable);
      let ahead = 0;
      for (let r = 0; r < classes; r++) ahead += meter.queued[r] ?? 0;
      const needed = ahead + costOf(d.unit, estimate) + reserve * d.capacity - optimistic;
      const wait = needed > 0 ? (needed * d.windowMs) / d.limit : 0;
      if (wait > waitMs) {
        waitMs = wait;
        dimension = d.name;
      }
    }
    return { dimension, waitMs };
  }
}
