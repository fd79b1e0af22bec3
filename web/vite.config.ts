// The console build (docs/adr/0020-web-console.md): `npm run build:console` writes web/dist, which the hub serves
// under /ui/. Hashed file names let the hub cache assets for a year and the page for no time at all.
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  plugins: [preact()],
  build: {
    outDir: process.env.CONSOLE_OUT_DIR ?? 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // No source maps in the image: the console's sources are in the repository.
    sourcemap: false,
  },
});
