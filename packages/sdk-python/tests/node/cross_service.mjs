// The Node side of the cross-language test (tests/test_cross_node.py): a node:http server instrumented with
// @lantern/sdk-node (packages/sdk-node/dist, built). GET /front calls the Python service's /middle through
// lantern.call(); GET /back is what the Python service calls back. Prints `listening <port>` when ready; on
// SIGTERM it closes the client (sending what is left) and exits.
import http from 'node:http';
import { pathToFileURL } from 'node:url';

const { createLantern } = await import(pathToFileURL(process.env.SDK_NODE).href);
const lantern = createLantern({ apiKey: process.env.NODE_API_KEY, ingestUrl: process.env.LANTERN_URL, flushIntervalMs: 60_000 });
const python = process.env.PYTHON_URL;

const json = (res, value) => {
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(value));
};

const server = http.createServer(
  lantern.wrap(async (req, res) => {
    if (req.url.startsWith('/front')) {
      const answer = await lantern.call('python-middle', (headers) => fetch(`${python}/middle`, { headers }), { url: `${python}/middle` });
      return json(res, { trace: lantern.currentTrace(), status: answer.status, python: await answer.json() });
    }
    if (req.url.startsWith('/back')) {
      await lantern.service('node-back-work', async () => undefined);
      return json(res, { trace: lantern.currentTrace(), traceparent: req.headers.traceparent ?? null });
    }
    if (req.url.startsWith('/flush')) {
      await lantern.flush();
      return json(res, lantern.stats());
    }
    res.statusCode = 404;
    res.end();
  }),
);
server.listen(0, '127.0.0.1', () => console.log(`listening ${server.address().port}`));
process.on('SIGTERM', async () => {
  server.close();
  await lantern.close();
  process.exit(0);
});
