"""The snippets of docs/sdk-python.md that connect to Flask's `got_request_exception` really run: blinker keeps
only a weak reference to a receiver, so a `lambda` connected without `weak=False` is collected at once and the
error never reaches the root span. Each snippet (a fenced block, or inline code) is run as written, against a
Flask app whose view raises, after a garbage collection."""

from __future__ import annotations

import gc
import os
import re
from typing import List

import flask
import pytest

from real_lantern import ROOT

DOCS = [os.path.join(ROOT, "docs", "sdk-python.md"), os.path.join(ROOT, "packages", "sdk-python", "README.md")]


def flask_snippets() -> List[str]:
    found = []
    for path in DOCS:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        blocks = re.findall(r"```python\n(.*?)```", text, re.S)
        inline = re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S))
        found += [code for code in blocks + inline if "got_request_exception.connect" in code]
    return found


def test_the_docs_show_how_to_connect_record_error():
    assert flask_snippets(), "docs/sdk-python.md no longer shows got_request_exception"


@pytest.mark.parametrize("snippet", flask_snippets())
def test_a_flask_snippet_of_the_docs_records_the_error(snippet, server, clients):
    lantern = clients(server.url)
    app = flask.Flask("docs")

    @app.get("/boom")
    def boom() -> str:
        raise RuntimeError("handler exploded")

    module = {"lantern": lantern, "app": app, "got_request_exception": flask.got_request_exception}
    exec(snippet, module)  # `module` lives on, as the application's module would
    gc.collect()  # what only a weak reference held is gone now, as it would be by the first request
    app.wsgi_app = lantern.wsgi(app.wsgi_app)  # type: ignore[method-assign]
    response = app.test_client().get("/boom")
    response.get_data()  # the body iterated to its end: the root span is recorded
    response.close()
    assert response.status_code == 500
    assert lantern.flush(timeout=5)
    [span] = server.spans()
    assert (span["requestURL"], span["responseStatus"], span.get("error")) == ("/boom", 500, "handler exploded")
