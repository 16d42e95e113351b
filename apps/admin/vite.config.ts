import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

// Served by the server below /admin/ (apps/server/src/admin-route.ts); asset names carry a hash,
// so the server caches them for good.
export default defineConfig({
  base: '/admin/',
  plugins: [react()],
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The modulepreload polyfill would be an inline script, which the page's policy refuses.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
  },
});
