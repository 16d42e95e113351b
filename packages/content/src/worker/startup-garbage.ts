import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** Just past V8's 5-second window of allocation rate, so the start-up's allocations no longer count. */
const CHECK_MS = 6_000;
const CHECKS = 10;
/** A young generation holding more than this is grown past an idle thread's needs. */
const YOUNG_BYTES = 8 * 1024 * 1024;

/**
 * Gives back the young generation a thread's start grew. Starting (loading modules, building the
 * OpenAPI document, opening a store) grows V8's young generation to its limit, and V8 shrinks it
 * only at a collection made while the thread allocates little, which an idle thread never makes:
 * an idle server kept about 35 MB of it on its main thread, and more on its worker threads
 * (docs/benchmarks.md, "Memory"). V8 judges the rate by the allocations since the last
 * collections (about 5 s of them), so a collection right away ends the start's share, and for the
 * thread's first minute, every 6 s, a young generation over 8 MB gets one full collection (on a
 * busy thread, an ordinary one).
 * Node has no API for this but V8's own `gc`, reached through its flag; the timer keeps no
 * thread alive.
 */
export function collectStartupGarbage(): void {
  fullCollection();
  let checks = 0;
  const timer = setInterval(() => {
    checks += 1;
    const young = getHeapSpaceStatistics().find((s) => s.space_name === 'new_space')?.physical_space_size ?? 0;
    if (young > YOUNG_BYTES) fullCollection();
    else clearInterval(timer);
    if (checks >= CHECKS) clearInterval(timer);
  }, CHECK_MS);
  timer.unref();
}

function fullCollection(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  setFlagsFromString('--no-expose-gc');
  gc();
}
