import { defineConfig } from 'vitest/config';

/**
 * Shared vitest preset. Integration tests open real databases and servers, so files run in
 * separate forked processes (an embedded store is owned by one process) with generous timeouts.
 * @param {import('vitest/config').ViteUserConfig['test']} [overrides]
 */
export function kbVitestConfig(overrides = {}) {
  return defineConfig({
    test: {
      pool: 'forks',
      testTimeout: 30_000,
      hookTimeout: 60_000,
      include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
      ...overrides,
    },
  });
}
