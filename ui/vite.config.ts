// Build of zest's web UI. The output (dist/) is embedded in the zest binary
// and served under /ui/ with a strict Content-Security-Policy, so nothing may
// be inlined: no inline scripts or styles, no data: URLs for assets.
import { defineConfig } from 'vite';

// The policy zest sends; `vite preview` sends it too, so a violation shows
// up in development instead of in the binary.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; " +
  "connect-src 'self'; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

// Development only: ZEST_URL=http://127.0.0.1:9378 npm run dev (or preview)
// forwards the API to a running zest, so the page and the API share an origin.
const zest = process.env.ZEST_URL;
const proxy = zest ? { '/v1': zest, '/api': zest } : undefined;

export default defineConfig({
  base: '/ui/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    target: 'es2022',
  },
  server: { proxy },
  preview: { proxy, headers: { 'Content-Security-Policy': csp } },
  test: { include: ['src/**/*.test.ts'] },
});
