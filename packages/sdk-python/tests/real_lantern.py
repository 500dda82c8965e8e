"""The real Lantern for the tests: `node gateway/dist/main.js` (the embedded mode: every service, SQLite, the
in-process bus) from the built checkout, on a free port with a temporary data directory, as the repository's own
process tests start it (gateway/test/process-helpers.ts); accounts made and data read through its HTTP API."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid
from typing import Any, Callable, Dict, List, Optional

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
MAIN = os.path.join(ROOT, "gateway", "dist", "main.js")
SDK_NODE = os.path.join(ROOT, "packages", "sdk-node", "dist", "index.js")
START_TIMEOUT = 30.0

#: Every variable the server's configuration reads (packages/config), so the caller's environment never leaks in.
CONFIG_VARS = [
    "PORT", "HOST", "DATA_DIR", "JWT_SECRET", "JWT_TTL_SECONDS", "LOG_LEVEL", "RATE_LIMIT_ENABLED",
    "RATE_LIMIT_INGEST_PER_MINUTE", "RATE_LIMIT_AUTH_PER_MINUTE", "RATE_LIMIT_INGEST_APPLICATION_PER_MINUTE",
    "RATE_LIMIT_INGEST_ORGANIZATION_PER_MINUTE", "RATE_LIMIT_UPLOADS_PER_MINUTE",
    "RATE_LIMIT_UPLOADS_ORGANIZATION_PER_MINUTE", "MAX_API_KEYS_PER_APPLICATION", "MAX_ORGANIZATIONS_PER_USER",
    "MAX_CONCURRENT_READS_PER_USER", "STORAGE_QUOTA_BYTES", "API_KEY_CACHE_MS", "TRUST_PROXY",
    "SHUTDOWN_TIMEOUT_MS", "RETENTION_DAYS", "READ_BUDGET_MS", "STREAM_BUDGET_MS", "READ_WORKERS",
    "HEADERS_TIMEOUT_MS", "REQUEST_TIMEOUT_MS", "KEEP_ALIVE_TIMEOUT_MS", "MAX_CONNECTIONS",
    "MAX_CONCURRENT_UPLOADS", "UPLOAD_WAIT_MS", "DOCUMENT_THREADS", "DOCUMENT_LEASE_MS",
    "LANTERN_STORE", "LANTERN_MONGO_URL", "LANTERN_MONGO_DATABASE", "LANTERN_BUS", "LANTERN_KAFKA_BROKERS",
    "LANTERN_KAFKA_TOPIC_PREFIX", "LANTERN_KAFKA_PARTITIONS", "LANTERN_BLOBS", "LANTERN_MINIO_URL",
    "LANTERN_MINIO_BUCKET", "LANTERN_EMBEDDINGS_URL",
]


def clean_env(**extra: str) -> Dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in CONFIG_VARS and not k.startswith("LANTERN_")}
    env.update(extra)
    return env


class RealLantern:
    def __init__(self) -> None:
        self.data_dir = tempfile.mkdtemp(prefix="lantern-sdk-python-")
        env = clean_env(PORT="0", HOST="127.0.0.1", DATA_DIR=self.data_dir, LOG_LEVEL="warn",
                        JWT_SECRET="sdk-python-test-secret-0123456789abcdef", RATE_LIMIT_ENABLED="false",
                        API_KEY_CACHE_MS="0")
        self.process = subprocess.Popen(["node", MAIN], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.STDOUT, text=True)
        self.output: List[str] = []
        port: Dict[str, int] = {}
        found = threading.Event()

        def read() -> None:
            assert self.process.stdout is not None
            for line in self.process.stdout:
                self.output.append(line)
                m = re.search(r"running on http://localhost:(\d+)", line)
                if m:
                    port["port"] = int(m.group(1))
                    found.set()
            found.set()

        threading.Thread(target=read, daemon=True).start()
        if not found.wait(START_TIMEOUT) or "port" not in port:
            self.stop()
            raise RuntimeError("the embedded Lantern did not start:\n" + "".join(self.output[-40:]))
        self.url = f"http://127.0.0.1:{port['port']}"

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        shutil.rmtree(self.data_dir, ignore_errors=True)

    def api(self, method: str, path: str, body: Any = None, token: Optional[str] = None) -> Any:
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.url + path, data=data, method=method)
        request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode()
        except urllib.error.HTTPError as error:
            raise AssertionError(f"{method} {path}: {error.code} {error.read().decode()}") from None
        return json.loads(text) if text else None


class Account:
    """A user, an organization, a project and `apps` applications with an API key each, through the HTTP API."""

    def __init__(self, lantern: RealLantern, apps: List[str]) -> None:
        self.lantern = lantern
        label = uuid.uuid4().hex[:8]
        reg = lantern.api("POST", "/auth/register",
                          {"email": f"sdk-python-{label}@example.com", "password": "correct horse battery",
                           "name": label})
        self.token: str = reg["token"]
        org = lantern.api("POST", "/organizations", {"name": f"org {label}"}, self.token)
        project = lantern.api("POST", "/projects", {"name": f"project {label}", "organizationId": org["id"]},
                              self.token)
        self.project_id: int = project["id"]
        self.apps: Dict[str, Dict[str, Any]] = {}
        for name in apps:
            app = lantern.api("POST", "/applications", {"name": f"{name} {label}", "projectId": project["id"]},
                              self.token)
            key = lantern.api("POST", f"/applications/{app['id']}/api-keys", {"name": "sdk-python test"}, self.token)
            self.apps[name] = {"id": app["id"], "key": key["key"]}

    def traces(self) -> List[Dict[str, Any]]:
        """GET /logs/project?id= with the JWT: the project's trace records."""
        return self.lantern.api("GET", f"/logs/project?id={self.project_id}", token=self.token)

    def logs(self) -> List[Dict[str, Any]]:
        """GET /ingest/logs with the JWT."""
        return self.lantern.api("GET", "/ingest/logs", token=self.token)

    def wait_for(self, read: Callable[["Account"], Any], check: Callable[[Any], bool], timeout: float = 20.0,
                 flush: Any = None) -> Any:
        """Reads until `check` holds (ingest goes through the bus to the writer: the data lands shortly after).
        `flush`: a client flushed before each read (a server records the root span once the response is sent,
        which may be after the test's HTTP client has read it)."""
        deadline = time.monotonic() + timeout
        while True:
            if flush is not None:
                flush.flush(timeout=10)
            value = read(self)
            if check(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out; last read: {json.dumps(value)[:2000]}")
            time.sleep(0.1)
