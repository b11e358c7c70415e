// Waiting on events rather than on the clock: the harness's servers call `notify()` on every
// request they log or answer, and a run that waits for a condition on those requests resumes at
// the next one. A condition about time itself ("16 s after the event") is the only reason to
// wake on a timer.

export class Wake {
  private waiters = new Set<() => void>();

  /** Resumes every waiter. */
  notify(): void {
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const resume of waiting) resume();
  }

  /** A promise of the next `notify()`, and a function that withdraws it. */
  private once(): { promise: Promise<void>; cancel: () => void } {
    let resume!: () => void;
    const promise = new Promise<void>((r) => {
      resume = r;
    });
    this.waiters.add(resume);
    return { promise, cancel: () => this.waiters.delete(resume) };
  }

  /**
   * Resolves at the next `notify()` of any of `wakes`, or once `ms` have passed when `ms` is
   * given (a condition about time).
   */
  static any(wakes: readonly Wake[], ms?: number): Promise<void> {
    const pending = wakes.map((w) => w.once());
    let timer: NodeJS.Timeout | undefined;
    const promises = pending.map((p) => p.promise);
    if (ms !== undefined) {
      promises.push(
        new Promise<void>((r) => {
          timer = setTimeout(r, Math.max(0, ms));
        }),
      );
    }
    return Promise.race(promises).finally(() => {
      if (timer !== undefined) clearTimeout(timer);
      for (const p of pending) p.cancel();
    });
  }
}
