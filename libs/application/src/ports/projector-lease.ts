// Which of several processes sharing one read model runs its projector: the one holding this lease.
// Held by renewing it; a holder that stops renewing (killed, frozen) loses it to the next process that asks.

export interface ProjectorLease {
  /** Takes the lease when it is free or expired, renews it when this process holds it; resolves whether it holds it now. */
  acquire(): Promise<boolean>;
  /**
   * Whether this process's last renewal is recent enough that no other process can have taken the lease (no I/O).
   * Asked right before every commit: a holder frozen past its term must not write over the new holder's work.
   */
  holds(): boolean;
  /** Gives the lease up (when this process holds it), so that another process takes it at its next try. */
  release(): Promise<void>;
}
