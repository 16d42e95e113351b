import type { ViteUserConfig } from 'vitest/config';
export function kbVitestConfig(overrides?: ViteUserConfig['test']): ViteUserConfig;
