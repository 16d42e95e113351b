import tseslint from 'typescript-eslint';

/**
 * What @kb/content, the pure text transforms, may not import: other workspace packages, and any
 * database, queue, logger or network library. Its runtime code (not its tests, which read their
 * fixtures) touches no files, sockets or processes either.
 */
const NOT_IN_CONTENT = [
  {
    group: ['@kb/*', '!@kb/tsconfig', '!@kb/vitest-config', '**/packages/*/src/**', '**/apps/*/src/**', '../../*/src/**', '../../../*/src/**', '../../../../*/src/**'],
    message: '@kb/content depends on no other workspace package.',
  },
  {
    group: ['kysely', 'kysely/*', 'pg', 'pg/*', '@electric-sql/*', 'ioredis', 'ioredis/*', 'bullmq', 'bullmq/*', 'pino', 'pino/*'],
    message: '@kb/content does no I/O: no database, queue or logger.',
  },
  {
    group: ['voyageai', 'voyageai/*', '@anthropic-ai/*', 'undici', 'undici/*', 'node-fetch', 'axios', 'msw', 'msw/*'],
    message: '@kb/content does no I/O: no network.',
  },
];
const NOT_IN_CONTENT_RUNTIME = [
  ...NOT_IN_CONTENT,
  {
    group: ['fs', 'fs/*', 'http', 'https', 'http2', 'net', 'tls', 'dns', 'dns/*', 'dgram', 'child_process', 'cluster'].flatMap((name) => [name, `node:${name}`]),
    message: '@kb/content does no I/O: no files, sockets or processes.',
  },
];
const NO_NETWORK_GLOBALS = ['fetch', 'XMLHttpRequest', 'WebSocket', 'EventSource'].map((name) => ({
  name,
  message: '@kb/content does no I/O: no network.',
}));

/** Shared lint rules: TypeScript's recommended set plus the project's own restrictions. */
export default tseslint.config(
  // examples/ are standalone apps with their own dependencies, outside the workspace.
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.kb-data/**', '**/.turbo/**', 'examples/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through @kb/config (loadConfig).' },
      ],
      'no-restricted-syntax': [
        'error',
        {
          // With tracing on, a module loader hook can hand importers a copy of a module's exports.
          selector: 'ExportNamedDeclaration > VariableDeclaration[kind="let"]',
          message: 'Export a constant (an object or a function that reads the current value), not a binding reassigned later.',
        },
      ],
    },
  },
  {
    files: ['packages/content/**'],
    rules: { 'no-restricted-imports': ['error', { patterns: NOT_IN_CONTENT }] },
  },
  {
    files: ['packages/content/src/**'],
    ignores: ['**/*.test.ts'],
    rules: {
      'no-restricted-imports': ['error', { patterns: NOT_IN_CONTENT_RUNTIME }],
      'no-restricted-globals': ['error', ...NO_NETWORK_GLOBALS],
    },
  },
  {
    // The configuration module is the one reader of process.env; tests and scripts set up their own.
    files: ['packages/config/src/**', 'packages/db/src/testing.ts', '**/*.test.ts', '**/test/**', '**/test-faults/**', '**/bench/**', 'tooling/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
