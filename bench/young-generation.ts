import { constants, PerformanceObserver } from 'node:perf_hooks';
import { setImmediate as nextMacrotask } from 'node:timers/promises';

/**
 * Watches V8's garbage collections from now on, to tell when what was allocated before has left
 * the young generation: an object that survives two young-generation collections (scavenges) is
 * moved to the old generation, and a full collection moves it at once. Until then every scavenge
 * copies it, a cost of having just made it, not of using it.
 *
 * @example
 * ```ts
 * const young = watchYoungGeneration();
 * const history = makeLargeHistory();
 * while (!(await young.hasAged())) await warmUpRun();
 * young.stop();
 * ```
 */
export function watchYoungGeneration(): { hasAged(): Promise<boolean>; stop(): void } {
  let scavenges = 0;
  let full = 0;
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const kind = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind;
      if (kind === constants.NODE_PERFORMANCE_GC_MINOR) scavenges++;
      else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) full++;
    }
  });
  observer.observe({ entryTypes: ['gc'] });
  return {
    async hasAged() {
      // The observer hears of a collection in a later macrotask: a loop of promises alone would never let it.
      await nextMacrotask();
      return scavenges >= 2 || full >= 1;
    },
    stop: () => observer.disconnect(),
  };
}
