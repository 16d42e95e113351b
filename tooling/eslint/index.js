import tseslint from 'typescript-eslint';

/** Shared lint rules: TypeScript's recommended set plus the project's own restrictions. */
export default tseslint.config(
  { ignores: ['**/node_modules/**', '**/dist/**', '**/.kb-data/**', '**/.turbo/**'] },
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-restricted-properties': [
        'error',
        { object: 'process', property: 'env', message: 'Read configuration through @kb/config (loadConfig).' },
      ],
    },
  },
  {
    // The configuration module is the one reader of process.env; tests and scripts set up their own.
    files: ['packages/config/src/**', 'packages/db/src/testing.ts', '**/*.test.ts', '**/test/**', '**/bench/**', 'tooling/**'],
    rules: { 'no-restricted-properties': 'off' },
  },
);
