// Test doubles for other packages' tests and benchmarks (`@kb/core/testing`); not part of the runtime entry.
export * from './fake-confluence.ts';
export * from './fake-site.ts';
