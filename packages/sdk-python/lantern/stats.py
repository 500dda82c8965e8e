"""The counters of delivery (`lantern.stats()`) and what an answer is reported as."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Dict

from .report import LanternError, Reporter, noun
from .transport import SendResult


@dataclass
class KindStats:
    """One kind's counters and gauges."""

    #: Items in memory waiting to be sent (a batch put back after a failure, and overflow bound for the spool).
    queued: int = 0
    #: Items in requests being sent (a fatal log's included).
    in_flight: int = 0
    #: Items the service accepted.
    sent: int = 0
    #: Items not kept: buffer full without spool, spool full, too large, left at close, recorded after close.
    dropped: int = 0
    #: Attempts that failed and were retried (network errors, 408, 429, 5xx).
    retried: int = 0
    #: Items of batches the service refused for good (4xx other than 408/429, 3xx).
    failed: int = 0
    #: Items of a stored batch that the service refused one by one (listed in its `rejected`).
    rejected: int = 0
    #: Items written to the spool directory.
    spooled: int = 0
    #: Items on disk waiting to be sent.
    spool_pending: int = 0


@dataclass
class LanternStats:
    traces: KindStats = field(default_factory=KindStats)
    logs: KindStats = field(default_factory=KindStats)

    def as_dict(self) -> Dict[str, Dict[str, int]]:
        return {"traces": asdict(self.traces), "logs": asdict(self.logs)}


def report_failure(reporter: Reporter, kind: str, result: SendResult, n: int, retrying: bool) -> None:
    """A failed attempt: retried (network, 408, 429, 5xx) or given up (any other status)."""
    code = "network" if result.status is None else "http_status"
    kept = "kept for a retry" if retrying else "not sent"
    message = f"POST /ingest/{kind} failed, {noun(kind, n)} {kept}: {result.message}"
    reporter.error(LanternError(code, message, kind=kind, status=result.status, count=n, retrying=retrying))


def account_outcome(counts: Dict[str, int], result: SendResult, n: int) -> None:
    """Counts a final outcome (delivered, or refused for good) and reports what the application should know.
    `counts` is updated by the caller's thread while it holds the exporter's lock; reports go afterwards."""
    if result.outcome == "fail":
        counts["failed"] += n
        return
    rejected = min(len(result.rejected), n)
    counts["sent"] += n - rejected
    counts["rejected"] += rejected


def report_outcome(reporter: Reporter, kind: str, result: SendResult, n: int) -> None:
    """The reports of a final outcome (outside the exporter's lock, as hooks may take their time)."""
    if result.outcome == "fail":
        report_failure(reporter, kind, result, n, False)
        return
    rejected = min(len(result.rejected), n)
    if rejected > 0:
        first: Any = result.rejected[0].get("errors") if isinstance(result.rejected[0], dict) else None
        why = "; ".join(str(e) for e in first) if isinstance(first, list) else ""
        message = f"the ingest service refused {rejected} of {noun(kind, n)}" + (f" (first: {why})" if why else "")
        reporter.error(LanternError("rejected_items", message, kind=kind, count=rejected, status=result.status,
                                    details=result.rejected))
    if not result.recognised:
        message = (f"POST /ingest/{kind} answered {result.status} with a body that is not the ingest service's "
                   f"answer (check ingest_url); {noun(kind, n)} counted as sent")
        reporter.error(LanternError("bad_response", message, kind=kind, count=n, status=result.status))
