/**
 * Preloaded into the Lantern process the demo starts (`node --import .../parent-watch.js gateway/dist/main.js`):
 * when the demo goes away without stopping it (killed with SIGKILL, a crash), Lantern gets the SIGTERM it
 * would have sent and shuts down cleanly instead of living on as an orphan.
 */
process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
