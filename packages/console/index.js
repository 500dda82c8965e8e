// The console is a browser app; this entry only tells Node where its built files are.
import { fileURLToPath } from 'node:url';

/** The directory `vite build` writes the console to (index.html and assets/). */
export const consoleDir = fileURLToPath(new URL('./dist/', import.meta.url));
