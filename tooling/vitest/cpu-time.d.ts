export function cpuStopwatch(): () => number;
