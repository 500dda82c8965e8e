"""A server process under test: its output collected by a thread, its port read from the line that announces it,
stopped with SIGTERM as a process manager stops it (shared by test_asgi_lifespan.py and test_examples.py)."""

from __future__ import annotations

import re
import signal
import subprocess
import threading
from typing import Dict, List, Optional


class ServedProcess:
    """`argv` run in `cwd` with exactly `env`; `ready` is a regular expression whose first group is the port."""

    def __init__(self, name: str, argv: List[str], cwd: str, env: Dict[str, str], ready: str) -> None:
        self.name = name
        self.process = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True)
        self.lines: List[str] = []
        self.port: Optional[int] = None
        self._ready = threading.Event()
        self._reader = threading.Thread(target=self._read, args=(re.compile(ready),), daemon=True)
        self._reader.start()

    def _read(self, ready: "re.Pattern[str]") -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self.lines.append(line)
            m = ready.search(line)
            if m and self.port is None:
                self.port = int(m.group(1))
                self._ready.set()
        self._ready.set()

    def output(self) -> str:
        return "".join(self.lines)

    def url(self, timeout: float = 30.0) -> str:
        """Its base address once it has announced its port (an AssertionError with its output if it never does)."""
        if not self._ready.wait(timeout) or self.port is None:
            raise AssertionError(f"{self.name} did not start:\n{self.output()}")
        return f"http://127.0.0.1:{self.port}"

    def stop(self, timeout: float = 20.0) -> Optional[int]:
        """SIGTERM; its exit code once it has ended and its output is read (None if it had to be killed)."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(5)
            return None
        finally:
            self._reader.join(5)
        return self.process.returncode
