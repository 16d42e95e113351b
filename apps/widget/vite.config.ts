import { defineConfig } from 'vite';
import pkg from './package.json' with { type: 'json' };

// One self-contained classic script (an IIFE, no imports, no eval, no inline styles), served by
// the server at /widget/v1/ (apps/server/src/widget-route.ts). Its version is the package's.
export default defineConfig({
  define: { __KB_WIDGET_VERSION__: JSON.stringify(pkg.version) },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    sourcemap: false,
    lib: {
      entry: 'src/main.ts',
      formats: ['iife'],
      name: 'KbAssistant',
      fileName: () => 'kb-assistant.js',
    },
  },
});
