/** The directory `vite build` writes the console to (index.html and assets/). */
export declare const consoleDir: string;
