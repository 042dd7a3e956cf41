"""Web server load: many concurrent games with trained partners, played to the end over HTTP.

Starts ``commoncause serve`` (uvicorn, one process) in a subprocess on a free port of
127.0.0.1 with its own temporary record folder, waits until ``GET /api/meta`` answers, then
an asyncio httpx client (127.0.0.1 only; at most ``--concurrency`` requests in flight and as
many connections, an idle one kept 2 s, under uvicorn's 5 s keep-alive) starts ``--games``
Common Cause games at once (level Normal, seat 0, ``"partner": "trained"``, seeds
``--seed``, ``--seed``+1, ...) and plays the person's seat to the end through
``POST /api/games/{id}/moves``: a seeded random legal move, the first legal move, or the
hint (``--person random|first|hint``). Every game is started before any move is sent, so
all of them are in progress together.

Reported: errors (any status other than 200/201, a transport error, an answer that is
neither the person's turn nor the end, or a game not finished; must be 0), games finished
and their records on disk marked finished, the latency of each move request (the
server plays the partner's reply before answering, so it is included) as p50/p95/max, of
game creation likewise, moves/s over the play phase, wall time, and the server process's
memory from ``/proc/<pid>/status``: VmRSS before the games (server up, no game yet),
after (all games over), the highest VmRSS sampled every 0.1 s, and VmHWM (the kernel's
peak). The load average is printed before and after: other work on the machine raises
the latencies. This is a benchmark, not a timed test. Run:
``python bench/bench_web.py [--games 100] [--concurrency 32] [--seed 1] [--json out.json]``
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
SERVE = "import sys; from commoncause.cli import main; sys.exit(main(sys.argv[1:]))"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def memory_mib(pid: int) -> dict[str, float]:
    """VmRSS and VmHWM of a process, MiB (``/proc/<pid>/status``)."""
    out = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            out[key] = round(int(value.split()[0]) / 1024, 1)  # kB
    return out


def percentile(values: list[float], q: float) -> float:
    """The q-th percentile (nearest rank) of values."""
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(q / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def summary_ms(values: list[float]) -> dict[str, float | int]:
    if not values:
        return {"n": 0}
    return {
        "n": len(values),
        "p50_ms": round(percentile(values, 50) * 1000, 1),
        "p95_ms": round(percentile(values, 95) * 1000, 1),
        "max_ms": round(max(values) * 1000, 1),
        "mean_ms": round(statistics.mean(values) * 1000, 1),
    }


class Server:
    """``commoncause serve`` in a subprocess on 127.0.0.1."""

    def __init__(self, record_dir: Path, log: Path) -> None:
        self.port = free_port()
        self.url = f"http://{HOST}:{self.port}"
        self.log = log
        self._log_file = log.open("wb")
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-c",
                SERVE,
                "serve",
                "--host",
                HOST,
                "--port",
                str(self.port),
                "--record-dir",
                str(record_dir),
            ],
            cwd=ROOT,
            stdout=self._log_file,
            stderr=subprocess.STDOUT,
        )

    def wait_ready(self, timeout: float = 120.0) -> float:
        start = time.perf_counter()
        while time.perf_counter() - start < timeout:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the server exited ({self.proc.returncode}):\n{self.tail()}")
            try:
                if httpx.get(f"{self.url}/api/meta", timeout=5).status_code == 200:
                    return time.perf_counter() - start
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"the server did not answer in {timeout:.0f} s:\n{self.tail()}")

    def tail(self, chars: int = 3000) -> str:
        self._log_file.flush()
        return self.log.read_text(errors="replace")[-chars:]

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._log_file.close()


class Load:
    """The client: the games, their latencies and errors."""

    def __init__(self, url: str, args: argparse.Namespace, seed: int | None = None) -> None:
        self.url = url
        self.args = args
        self.seed = args.seed if seed is None else seed
        self.sem = asyncio.Semaphore(args.concurrency)
        self.move_latency: list[float] = []
        self.create_latency: list[float] = []
        self.hint_latency: list[float] = []
        self.errors: list[str] = []
        self.finished = 0
        self.won = 0
        self.in_progress = 0
        self.max_in_progress = 0
        self.all_started = asyncio.Event()
        self.started = 0
        self.play_start = 0.0

    async def request(self, client, method, path, latencies, **kw):
        """One request under the semaphore; its latency once a slot is held (None and an
        error noted on failure)."""
        async with self.sem:
            start = time.perf_counter()
            try:
                r = await client.request(method, self.url + path, **kw)
            except httpx.HTTPError as e:
                self.errors.append(f"{method} {path}: {type(e).__name__}: {e}")
                return None
            latencies.append(time.perf_counter() - start)
        if r.status_code not in (200, 201):
            self.errors.append(f"{method} {path}: {r.status_code} {r.text[:200]}")
            return None
        return r.json()

    async def game(self, client: httpx.AsyncClient, index: int) -> None:
        seed = self.seed + index
        rng = random.Random(seed)
        body = {
            "game": "common_cause",
            "level": self.args.level,
            "seat": 0,
            "partner": "trained",
            "seed": seed,
        }
        data = await self.request(client, "POST", "/api/games", self.create_latency, json=body)
        self.started += 1
        if self.started == self.args.games:
            self.all_started.set()
        if data is None:
            return
        self.in_progress += 1
        self.max_in_progress = max(self.max_in_progress, self.in_progress)
        await self.all_started.wait()
        gid, headers, v = data["id"], {"Authorization": f"Bearer {data['token']}"}, data["view"]
        try:
            for _ in range(self.args.max_moves):
                if v.get("over"):
                    self.finished += 1
                    self.won += bool(v.get("won"))
                    return
                if not v.get("your_turn") or not v.get("legal"):
                    self.errors.append(f"game {gid}: neither over nor the person's turn")
                    return
                if self.args.person == "hint":
                    h = await self.request(
                        client, "GET", f"/api/games/{gid}/hint", self.hint_latency, headers=headers
                    )
                    if h is None:
                        return
                    move = h["move"]
                elif self.args.person == "random":
                    move = rng.choice(v["legal"])["text"]
                else:
                    move = v["legal"][0]["text"]
                v = await self.request(
                    client,
                    "POST",
                    f"/api/games/{gid}/moves",
                    self.move_latency,
                    json={"move": move},
                    headers=headers,
                )
                if v is None:
                    return
            self.errors.append(f"game {gid}: not over after {self.args.max_moves} moves")
        finally:
            self.in_progress -= 1

    async def run(self) -> float:
        # An idle connection is dropped by the client after 2 s, before uvicorn's
        # keep-alive timeout (5 s) closes it: with both at 5 s (httpx's default), a request
        # sent on a connection the server is closing fails with ReadError (a client-side
        # race, not a server error; seen once in 100 games).
        limits = httpx.Limits(
            max_connections=self.args.concurrency,
            max_keepalive_connections=self.args.concurrency,
            keepalive_expiry=2.0,
        )
        timeout = httpx.Timeout(self.args.timeout)
        async with httpx.AsyncClient(limits=limits, timeout=timeout, trust_env=False) as client:
            start = time.perf_counter()
            tasks = [asyncio.create_task(self.game(client, i)) for i in range(self.args.games)]
            await self.all_started.wait()
            self.play_start = time.perf_counter()
            await asyncio.gather(*tasks)
            return time.perf_counter() - start


async def sample_memory(pid: int, peak: dict, stop: asyncio.Event) -> None:
    while not stop.is_set():
        with contextlib.suppress(OSError, KeyError):
            peak["VmRSS"] = max(peak.get("VmRSS", 0.0), memory_mib(pid)["VmRSS"])
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.1)


async def drive(server: Server, args: argparse.Namespace) -> dict:
    """The first round (the figures), then ``--rounds`` - 1 more on the same server (their
    errors count, and the RSS after each round shows whether memory keeps growing)."""
    load = Load(server.url, args)
    peak: dict[str, float] = {}
    stop = asyncio.Event()
    sampler = asyncio.create_task(sample_memory(server.proc.pid, peak, stop))
    wall = await load.run()
    play_wall = time.perf_counter() - load.play_start
    rss_rounds = [memory_mib(server.proc.pid)["VmRSS"]]
    for r in range(1, args.rounds):
        more = Load(server.url, args, seed=args.seed + r * args.games)
        await more.run()
        load.errors += more.errors
        rss_rounds.append(memory_mib(server.proc.pid)["VmRSS"])
    stop.set()
    await sampler
    return {
        "load": load,
        "wall": wall,
        "play_wall": play_wall,
        "peak_rss": peak.get("VmRSS"),
        "rss_rounds": rss_rounds,
    }


def check_records(record_dir: Path, games: int) -> tuple[int, list[str]]:
    finished, errors = 0, []
    for path in sorted(record_dir.glob("*.json")):
        try:
            record = json.loads(path.read_text())
        except ValueError as e:
            errors.append(f"record {path.name}: {e}")
            continue
        if record.get("finished"):
            finished += 1
        else:
            errors.append(f"record {path.name}: not finished")
    if finished != games:
        errors.append(f"{finished} finished records on disk, expected {games}")
    return finished, errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="concurrent games (100)")
    parser.add_argument(
        "--concurrency",
        type=int,
        default=32,
        help="requests in flight at most, and connections (32)",
    )
    parser.add_argument("--seed", type=int, default=1, help="seed of the first game (1)")
    parser.add_argument("--level", default="normal", help="Common Cause level (normal)")
    parser.add_argument(
        "--person",
        choices=("first", "random", "hint"),
        default="random",
        help="the person's move: first legal, seeded random legal, or the "
        "hint (an extra GET per move); default random",
    )
    parser.add_argument(
        "--max-moves",
        type=int,
        default=1000,
        help="person's moves per game before it counts as an error (1000)",
    )
    parser.add_argument(
        "--timeout", type=float, default=300.0, help="seconds a request may take (300)"
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="rounds of --games games on the same server (1); the figures are the first's, "
        "the RSS is reported after each",
    )
    parser.add_argument("--json", type=Path, help="also write the results here")
    args = parser.parse_args(argv)

    # A SIGTERM (``timeout``, a CI runner) exits through the finally below, which stops the
    # server subprocess instead of leaving it running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    load_before = os.getloadavg()
    print(
        f"{args.games} Common Cause games ({args.level}, partner trained, person {args.person}, "
        f"seeds {args.seed}-{args.seed + args.games - 1}), at most {args.concurrency} requests "
        f"in flight; {os.cpu_count()} CPUs, Python {platform.python_version()}, "
        f"load {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}"
    )
    with tempfile.TemporaryDirectory(prefix="bench_web_") as tmp:
        record_dir = Path(tmp) / "records"
        server = Server(record_dir, Path(tmp) / "server.log")
        try:
            ready = server.wait_ready()
            pid = server.proc.pid
            mem_before = memory_mib(pid)
            out = asyncio.run(drive(server, args))
            mem_after = memory_mib(pid)
            alive = server.proc.poll() is None
            log_tail = server.tail()
        finally:
            server.stop()
        records_finished, record_errors = check_records(record_dir, args.games * args.rounds)
    load_after = os.getloadavg()

    load: Load = out["load"]
    errors = load.errors + record_errors
    if not alive:
        errors.append("the server died")
    moves = len(load.move_latency)
    result = {
        "games": args.games,
        "concurrency": args.concurrency,
        "seed": args.seed,
        "level": args.level,
        "person": args.person,
        "cpus": os.cpu_count(),
        "python": platform.python_version(),
        "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in load_after],
        "server_ready_s": round(ready, 2),
        "games_finished": load.finished,
        "games_won": load.won,
        "max_games_in_progress": load.max_in_progress,
        "records_finished": records_finished,
        "errors": len(errors),
        "error_samples": errors[:10],
        "wall_s": round(out["wall"], 1),
        "play_wall_s": round(out["play_wall"], 1),
        "moves": moves,
        "moves_per_s": round(moves / out["play_wall"], 1) if out["play_wall"] > 0 else None,
        "move_latency": summary_ms(load.move_latency),
        "create_latency": summary_ms(load.create_latency),
        "hint_latency": summary_ms(load.hint_latency),
        "server_mib": {
            "rss_before": mem_before.get("VmRSS"),
            "rss_after": mem_after.get("VmRSS"),
            "rss_after_each_round": out["rss_rounds"],
            "rss_peak_sampled": out["peak_rss"],
            "hwm": mem_after.get("VmHWM"),
        },
    }
    m, c, mem = result["move_latency"], result["create_latency"], result["server_mib"]
    print(f"server up in {ready:.1f} s (pid {pid}, port {server.port})")
    print(
        f"games finished {load.finished}/{args.games} (won {load.won}), all {load.max_in_progress}"
        f" in progress at once, records finished {records_finished}, errors {len(errors)}"
    )
    print(
        f"wall {out['wall']:.1f} s (play phase {out['play_wall']:.1f} s), "
        f"{moves} moves, {result['moves_per_s']} moves/s"
    )
    if moves:
        print(
            f"move (incl. the partner's reply): p50 {m['p50_ms']:.0f} ms, "
            f"p95 {m['p95_ms']:.0f} ms, max {m['max_ms']:.0f} ms, mean {m['mean_ms']:.0f} ms"
        )
    if c["n"]:
        print(
            f"create: p50 {c['p50_ms']:.0f} ms, p95 {c['p95_ms']:.0f} ms, max {c['max_ms']:.0f} ms"
        )
    if load.hint_latency:
        h = result["hint_latency"]
        print(f"hint: p50 {h['p50_ms']:.0f} ms, p95 {h['p95_ms']:.0f} ms")
    print(
        f"server memory (MiB): RSS before {mem['rss_before']}, after {mem['rss_after']}, "
        f"peak sampled {mem['rss_peak_sampled']}, VmHWM {mem['hwm']}"
    )
    if args.rounds > 1:
        print(f"RSS after each round (MiB): {out['rss_rounds']} (figures above: round 1)")
    print(f"load after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    for e in errors[:10]:
        print(f"error: {e}")
    if errors and log_tail.strip():
        print(f"server log (tail):\n{log_tail}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")
        print(f"wrote {args.json}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
