"""Lantern's client library for Python: a trace per incoming request (WSGI and ASGI middleware), span helpers,
logs with the request's trace id, and batched delivery that retries without duplicates, keeps memory bounded and
can spool to disk. Standard library only.

    from lantern import Lantern
    lantern = Lantern(api_key="...", ingest_url="http://localhost:8080")
    app.wsgi_app = lantern.wsgi(app.wsgi_app)     # Flask; lantern.asgi(app) for FastAPI/Starlette
"""

from .client import Lantern, TraceIds
from .logs import LanternHandler, LogApi
from .options import LOG_LEVELS, LanternOptionError
from .report import DropInfo, LanternError
from .spans import CallHeaders, ChildSpan, SpanScope
from .stats import KindStats, LanternStats
from .transport import SDK_VERSION

__version__ = SDK_VERSION

__all__ = [
    "CallHeaders",
    "ChildSpan",
    "DropInfo",
    "KindStats",
    "LOG_LEVELS",
    "Lantern",
    "LanternError",
    "LanternHandler",
    "LanternOptionError",
    "LanternStats",
    "LogApi",
    "SpanScope",
    "TraceIds",
    "__version__",
]
