import type { RequestHandler } from 'express';

/**
 * At most `max` uploads of this process are received at once; the others wait their turn, first come first served,
 * their bodies unread (TCP holds them back). Each chunk of an upload is parsed, hashed and written on the event
 * loop: 100 uploads received at once put 100 chunks in every turn of the loop, and /healthz or an ingest batch
 * behind them waits hundreds of milliseconds; a few at a time take about as long in all and leave the loop free
 * between chunks (bench/abuse, docs/benchmarks.md "Abusive clients"). A slot is freed when the response is closed:
 * answered, cut by the server's request timeout, or abandoned by the client (a waiting one then leaves the queue).
 */
export function uploadSlots(max: number): RequestHandler {
  let busy = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else busy--;
  };
  return (_req, res, next) => {
    let holding = false;
    const take = () => {
      holding = true;
      next();
    };
    res.once('close', () => {
      if (holding) release();
      else {
        const i = waiting.indexOf(take);
        if (i >= 0) waiting.splice(i, 1);
      }
    });
    if (busy < max) {
      busy++;
      take();
    } else {
      waiting.push(take);
    }
  };
}
