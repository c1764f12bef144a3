import type { FaultMode, FaultTarget } from './schemas';

/**
 * Faults queued by tests (test mode only): each is consumed by the next authenticated, well-formed
 * write to its target, in the order they were queued.
 */
export class FaultQueue {
  private readonly queues: Record<FaultTarget, FaultMode[]> = { refunds: [], holds: [] };

  push(target: FaultTarget, mode: FaultMode, times: number): void {
    for (let i = 0; i < times; i += 1) this.queues[target].push(mode);
  }

  take(target: FaultTarget): FaultMode | undefined {
    return this.queues[target].shift();
  }

  pending(): Record<FaultTarget, FaultMode[]> {
    return { refunds: [...this.queues.refunds], holds: [...this.queues.holds] };
  }

  clear(): void {
    this.queues.refunds = [];
    this.queues.holds = [];
  }
}
