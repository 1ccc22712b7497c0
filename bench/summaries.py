"""What `codefathom summarize` itself costs: a project summarised against a local fake endpoint that
answers at once (or after --delay seconds), so the time measured is codefathom's (prompts, HTTP,
cache writes, the search field), not a model's.

    python bench/summaries.py PROJECT [--concurrency 4] [--delay 0] [--limit N]

Indexes PROJECT into a temporary index (never the project's own), summarises it, summarises it
again (the cache: no request), and times a few searches with and without summaries.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from codefathom.service import Codefathom


def serve(delay: float) -> tuple[ThreadingHTTPServer, list[int]]:
    count = [0]
    lock = threading.Lock()

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with lock:
                count[0] += 1
            if delay:
                time.sleep(delay)
            head = body["messages"][-1]["content"].split("\n", 1)[0]
            answer: dict[str, Any] = {
                "choices": [{"message": {"content": f"Handles {head.split()[1]} so callers need not."}}],
                "usage": {"prompt_tokens": len(json.dumps(body)) // 4, "completion_tokens": 12},
            }
            raw = json.dumps(answer).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("project", type=Path)
    parser.add_argument("--concurrency", type=int, default=4)
    parser.add_argument("--delay", type=float, default=0.0, help="seconds the fake endpoint takes per answer")
    parser.add_argument("--limit", type=int, default=100_000)
    args = parser.parse_args()
    server, count = serve(args.delay)
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    queries = ["retry a failed request", "parse the header value", "close the connection pool", "timeout"]
    with tempfile.TemporaryDirectory() as home, Codefathom(args.project, index_dir=Path(home) / "index") as cf:
        table = {"provider": "openai", "model": "fake", "url": url, "concurrency": args.concurrency}
        cf.settings = dataclasses.replace(cf.settings, extra={**cf.settings.extra, "summaries": table})
        t0 = time.perf_counter()
        cf.index()
        index_s = time.perf_counter() - t0

        def search_ms() -> float:
            t = time.perf_counter()
            for _ in range(5):
                for q in queries:
                    cf.search(q, fresh=False)
            return (time.perf_counter() - t) * 1000 / (5 * len(queries))

        before_ms = search_ms()
        dry = cf.summarize(limit=args.limit, dry_run=True)
        first = cf.summarize(limit=args.limit)
        requests = count[0]
        second = cf.summarize(limit=args.limit)
        after_ms = search_ms()
        coverage = first.coverage
        assert coverage is not None
        print(json.dumps({
            "project": str(args.project), "units": coverage.units, "definitions": coverage.definitions,
            "index_s": round(index_s, 2), "planned": first.planned, "skipped": first.skipped,
            "estimated_tokens_in": dry.tokens_in, "tokens_in": first.tokens_in, "written": first.written,
            "requests": requests, "seconds": round(first.seconds, 2),
            "units_per_second": round(first.units_per_second, 1), "second_run_requests": count[0] - requests,
            "second_run_planned": second.planned, "with_summary": coverage.with_summary,
            "search_ms_before": round(before_ms, 1), "search_ms_after": round(after_ms, 1),
            "concurrency": args.concurrency, "delay_s": args.delay,
        }, indent=2))
    server.shutdown()


if __name__ == "__main__":
    main()
