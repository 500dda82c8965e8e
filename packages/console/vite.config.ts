import { defineConfig } from 'vite';

// No React plugin: Vite's own transform compiles TSX with the automatic JSX runtime (tsconfig "jsx": "react-jsx");
// the console needs no fast refresh in production, and one plugin fewer keeps the build dependencies small.
export default defineConfig({
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    sourcemap: false,
    reportCompressedSize: true,
  },
  server: {
    // `pnpm --filter @lantern/console dev` against a running `pnpm start` on 8080.
    proxy: Object.fromEntries(
      ['/auth', '/organizations', '/projects', '/applications', '/api-keys', '/logs', '/ingest', '/metrics', '/ai', '/openapi.json', '/healthz'].map((p) => [p, 'http://localhost:8080']),
    ),
  },
});
