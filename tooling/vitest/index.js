import { defineConfig } from 'vitest/config';

/**
 * Shared vitest preset. Integration tests open real databases and servers, so files run in
 * separate forked processes (an embedded store is owned by one process) with generous timeouts.
 * Two files at a time (vitest's default on two cores is one): most files spend their time waiting
 * on the servers, processes and databases they start, and the server package's suite took half
 * as long this way on the same busy machine (docs/benchmarks.md, "The test suite").
 * The timeouts catch a hang, and say nothing of speed: at 30 s, tests that make a new store
 * (seconds of initdb when idle) failed only on the clock at load 18 on 2 cores.
 * @param {import('vitest/config').ViteUserConfig['test']} [overrides]
 */
export function kbVitestConfig(overrides = {}) {
  return defineConfig({
    test: {
      pool: 'forks',
      maxWorkers: 2,
      testTimeout: 120_000,
      hookTimeout: 180_000,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      ...overrides,
    },
  });
}
