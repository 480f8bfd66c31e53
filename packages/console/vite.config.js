// The console's build (docs/console.md): Preact, JSX compiled by Vite's own transformer, hashed
// files under dist/assets/ that the server caches for a year, served from /console/; public/ (the
// favicon) copied to the build's root.
import { defineConfig } from 'vite';

export default defineConfig({
  base: '/console/',
  root: 'src',
  // Copied as they are to the build's root: the favicon (favicon.svg, linked from index.html, and
  // favicon.ico, which the server also answers at /favicon.ico).
  publicDir: '../public',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: '../dist',
    emptyOutDir: true,
    sourcemap: false,
    // No inline scripts or data: modules: the page's CSP allows only the instance's own files.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
});
