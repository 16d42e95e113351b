/**
 * Bounds on pathological input measure the CPU time the work took (user + system, every thread
 * of this process), not wall-clock time: a busy machine slows the clock several times over but
 * leaves the work a computation does about the same, so a bound can stay tight without failing
 * when other processes compete for the cores. Work done by other processes is not counted.
 * @returns {() => number} milliseconds of CPU time used since the call
 */
export function cpuStopwatch() {
  const start = process.cpuUsage();
  return () => {
    const used = process.cpuUsage(start);
    return (used.user + used.system) / 1000;
  };
}
