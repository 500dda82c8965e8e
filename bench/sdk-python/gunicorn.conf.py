# gunicorn's settings for bench/sdk-python (run.mjs starts `python -m gunicorn -c gunicorn.conf.py app:app`).
# One worker process with the gthread worker: keep-alive connections (the sync worker closes every connection
# after its response), a pool of BENCH_THREADS threads (default 4) fed by the worker's selector loop. The app is
# imported in the worker, not in the master (no --preload), so each SDK starts its export thread where it runs.
import os

bind = os.environ["BENCH_BIND"]
workers = 1
worker_class = "gthread"
threads = int(os.environ.get("BENCH_THREADS", "4"))
keepalive = 30  # seconds an idle kept-alive connection stays open (the default, 2, is shorter than a pause)
loglevel = "warning"
accesslog = None  # the default: no access log (it would cost more than the SDKs)


def worker_exit(server, worker):
    # gunicorn calls this in the worker after its loop has ended (SIGTERM to the master: a graceful stop), before
    # the process exits: the place the Lantern docs name for lantern.close() under gunicorn.
    import app

    app.finish()
