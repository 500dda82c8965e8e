export { createAccountsApp, createAccountsRouters, type AccountsDeps } from './app.js';
