export { createAiApp } from './app.js';
export { createAiRouter, type AiDeps, type AiStore } from './routes.js';
