export { createWriter, type Writer, type WriterDeps } from './writer.js';
