/**
 * Credit accounting for one direction of one stream, shared by both ends of the link.
 *
 * The sender may only send what the receiver has granted; it waits for credit otherwise. The receiver
 * uses the same class in reverse: `consume` on arrival fails if the sender overspent, which is how a
 * hostile peer that ignores flow control is caught instead of filling our memory.
 */
export class CreditWindow {
  private waiters: Array<() => void> = [];

  constructor(private available: number) {}

  get credit(): number {
    return this.available;
  }

  /** Sender side: resolves once there is credit (or the window was abandoned). */
  async whenOpen(): Promise<void> {
    while (this.available <= 0) await new Promise<void>(resolve => this.waiters.push(resolve));
  }

  /** Takes up to `wanted` bytes of credit, returning how many were taken (0 when closed). */
  take(wanted: number): number {
    const granted = Math.max(0, Math.min(wanted, this.available));
    this.available -= granted;
    return granted;
  }

  /** Receiver side: records bytes that arrived; false when they exceed what was granted. */
  consume(bytes: number): boolean {
    if (bytes > this.available) return false;
    this.available -= bytes;
    return true;
  }

  grant(bytes: number): void {
    this.available += bytes;
    const waiting = this.waiters;
    this.waiters = [];
    for (const wake of waiting) wake();
  }

  /** Wakes every waiter for good: used when the stream is abandoned so no sender hangs. */
  abandon(): void {
    this.grant(Number.MAX_SAFE_INTEGER / 2);
  }
}
