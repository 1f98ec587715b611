#!/usr/bin/env python3
"""Prints the scenario × server table from run.sh's all.jsonl as Markdown.

Columns: delivered msg/s and delivery ratio, latency p50/p99, server CPU µs per delivered
message (over the measured window) and its user-space part (the server's own code; the
rest is the kernel's work for its sends and receives), how busy the server's and the generator's cores were
(a generator near 100 % while the server is not means the figure is the generator's),
peak RSS, and each number's ratio to Switchboard's
(text dialect) in the same scenario; "vs floor" divides p99 and CPU/msg by the floor
hub's (benchmarks/peers/floor_hub.c) when it ran. Idle rows show connect times and RSS per
connection. With several rounds (run.sh --rounds N) every number is the median over the
rounds, and the notes give the p99 range. When Switchboard's JSON protocol ran beside its
text dialect (switchboard-json beside switchboard), a second table divides the JSON rows'
CPU per delivery, all of it and its user-space part, by the text rows'. When Switchboard ran
on more than one backend (switchboard-epoll, switchboard-dispatch, switchboard-uring beside
switchboard), a last table puts the backends side by side in each scenario: delivered msg/s,
server CPU per delivery, KiB per idle connection, each divided by the epoll row's.
"""
import json
import statistics
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line:
                rows.append(json.loads(line))
    return rows


def fmt_us(v):
    if v is None:
        return "–"
    if v >= 1000:
        return f"{v / 1000:.1f} ms"
    return f"{v:.0f} µs"


def fmt_rate(v):
    if v is None:
        return "–"
    if v >= 10000:
        return f"{v / 1000:.1f}k"
    return f"{v:.0f}"


def ratio(v, base):
    if v is None or base in (None, 0) or v == 0:
        return "–"
    return f"{v / base:.2f}×"


def fmt_cpu(v):
    """µs per delivery with three significant digits (fan-out rows are a few hundredths)."""
    if v is None:
        return "–"
    return f"{v:.3g}" if v < 1 else f"{v:.2f}"


def busy(v):
    return "–" if v is None else f"{v:.0f} %"


def median(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def merge(runs):
    """One row per (scenario, server): medians over the rounds that produced a result."""
    benches = [r["bench"] for r in runs if r.get("bench")]
    if not benches:
        return None
    first = benches[0]
    m = {"rounds": len(benches), "idle": first.get("idle", False)}
    if m["idle"]:
        m["opened"] = min(b["opened"] for b in benches)
        m["connections"] = first["connections"]
        m["connect_ms"] = {k: median(b["connect_ms"][k] for b in benches) for k in ("p50", "p99", "max")}
        m["server_rss_kib"] = median(b.get("server_rss_kib") for b in benches)
        m["server_kib_per_connection"] = median(b.get("server_kib_per_connection") for b in benches)
        m["server_fds_per_connection"] = median(b.get("server_fds_per_connection") for b in benches)
        return m
    m["sent_per_sec"] = median(b["sent"] / b["duration"] for b in benches)
    m["delivered_per_sec"] = median(b["delivered_per_sec"] for b in benches)
    m["delivery_ratio"] = median(b["delivery_ratio"] for b in benches)
    m["delivered"] = min(b["delivered"] for b in benches)
    m["sent"] = max(b["sent"] for b in benches)
    m["p50"] = median(b["latency_us"]["p50"] for b in benches)
    p99s = [b["latency_us"]["p99"] for b in benches]
    m["p99"] = median(p99s)
    m["p99_range"] = (min(p99s), max(p99s))
    m["cpu"] = median(b.get("server_cpu_us_per_msg") for b in benches)
    m["user_cpu"] = median(b.get("server_user_cpu_us_per_msg") for b in benches)
    m["server_busy"] = median(100 * b["server_cpu_s"] / b["duration"] for b in benches if b.get("server_cpu_s") is not None)
    m["generator_busy"] = median(100 * b["client_cpu_s"] / b["duration"] for b in benches if b.get("client_cpu_s") is not None)
    m["hwm_kib"] = median([r.get("hwm_kib") or r["bench"].get("server_hwm_kib") or 0 for r in runs if r.get("bench")])
    m["closed"] = max(b.get("closed_during_run") or 0 for b in benches)
    m["closed_rounds"] = sum(1 for b in benches if b.get("closed_during_run"))
    m["failed"] = max(b.get("failed") or 0 for b in benches)
    return m


def main():
    rows = load(sys.argv[1])
    groups = {}
    for r in rows:
        groups.setdefault((r["scenario"], r["server"]), []).append(r)
    merged = {k: merge(v) for k, v in groups.items()}
    has_floor = any(k[1] == "floor" for k in merged)
    print("| scenario | server | sent msg/s | delivered msg/s | ratio | p50 | p99 | server CPU µs/msg | of it user | server / generator core busy | peak RSS | msg/s vs SB | CPU/msg vs SB |"
          + (" p99 vs floor | CPU/msg vs floor |" if has_floor else "") + " notes |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|" if has_floor else "") + "---|")
    idle = []
    for (scenario, server), m in merged.items():
        if m is None:
            print(f"| {scenario} | {server} | failed |" + " |" * (13 if has_floor else 11))
            continue
        if m["idle"]:
            idle.append((scenario, server, m))
            continue
        sb = merged.get((scenario, "switchboard"))
        fl = merged.get((scenario, "floor"))
        notes = []
        if m["rounds"] > 1:
            lo, hi = m["p99_range"]
            notes.append(f"{m['rounds']} rounds, p99 {fmt_us(lo)}–{fmt_us(hi)}")
        if m["closed"]:
            where = f" in {m['closed_rounds']} of {m['rounds']} rounds" if m["rounds"] > 1 else ""
            notes.append(f"up to {m['closed']} conns closed by server{where}")
        if m["delivered"] == 0 and m["sent"] > 0:
            notes.append("no measured message arrived before the drain ended (overloaded)")
        if m["failed"]:
            notes.append(f"{m['failed']} connects failed")
        cpu = m["cpu"]
        floor_cols = ""
        if has_floor:
            floor_cols = f" {ratio(m['p99'], fl and fl['p99'])} | {ratio(cpu, fl and fl['cpu'])} |"
        print(
            f"| {scenario} | {server} | {fmt_rate(m['sent_per_sec'])} | {fmt_rate(m['delivered_per_sec'])} | {m['delivery_ratio']:.3f} | "
            f"{fmt_us(m['p50'])} | {fmt_us(m['p99'])} | "
            f"{fmt_cpu(cpu)} | {fmt_cpu(m['user_cpu'])} | {busy(m['server_busy'])} / {busy(m['generator_busy'])} | {m['hwm_kib'] / 1024:.0f} MiB | "
            f"{ratio(m['delivered_per_sec'], sb and sb['delivered_per_sec'])} | "
            f"{ratio(cpu, sb and sb['cpu'])} |{floor_cols} {'; '.join(notes)} |"
        )
    pairs = [(scenario, m, merged.get((scenario, "switchboard-json"))) for (scenario, server), m in merged.items()
             if server == "switchboard" and m and not m["idle"] and merged.get((scenario, "switchboard-json"))]
    if pairs:
        print()
        print("| JSON ÷ text | server CPU µs/msg, text → JSON | ÷ | user µs/msg, text → JSON | ÷ |")
        print("|---|---:|---:|---:|---:|")
        for scenario, text, json_row in pairs:
            print(
                f"| {scenario} | {fmt_cpu(text['cpu'])} → {fmt_cpu(json_row['cpu'])} | {ratio(json_row['cpu'], text['cpu'])} | "
                f"{fmt_cpu(text['user_cpu'])} → {fmt_cpu(json_row['user_cpu'])} | {ratio(json_row['user_cpu'], text['user_cpu'])} |"
            )
    if idle:
        print()
        print("| idle | server | connections open | connect p50 | connect p99 | connect max | RSS held | KiB per connection | vs SB | descriptors per connection |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
        sb = merged.get(("idle", "switchboard"))
        for scenario, server, m in idle:
            c = m["connect_ms"]
            per = m["server_kib_per_connection"]
            fds = m.get("server_fds_per_connection")
            print(
                f"| {scenario} | {server} | {m['opened']}/{m['connections']} | {c['p50']:.1f} ms | "
                f"{c['p99']:.1f} ms | {c['max']:.1f} ms | {(m['server_rss_kib'] or 0) / 1024:.0f} MiB | "
                f"{'–' if per is None else f'{per:.2f}'} | "
                f"{ratio(per, sb and sb['server_kib_per_connection'])} | "
                f"{'–' if fds is None else f'{fds:.2f}'} |"
            )
    backends(merged)


# The rows of one binary on its backends; "switchboard" is the platform's default backend.
BACKEND_ROWS = [
    ("switchboard", "default"), ("switchboard-epoll", "epoll"), ("switchboard-uring", "io_uring"),
    ("switchboard-dispatch", "dispatch"), ("switchboard-base", "default"),
    ("switchboard-base-epoll", "epoll"), ("switchboard-base-uring", "io_uring"),
    ("switchboard-base-dispatch", "dispatch"),
]


def backends(merged):
    """The backends table: each scenario's Switchboard rows by backend, divided by epoll's
    (the same binary's: switchboard-base-epoll for the switchboard-base rows)."""
    names = [n for n, _ in BACKEND_ROWS]
    present = {server for (_, server) in merged if server in names}
    if len(present) < 2 or not ({"switchboard-dispatch", "switchboard-base-dispatch", "switchboard-uring",
                                   "switchboard-base-uring", "switchboard-epoll", "switchboard-base-epoll"} & present):
        return
    print()
    print("| backends | server | backend | delivered msg/s | vs epoll | server CPU µs/msg | vs epoll | of it user | vs epoll | KiB per idle connection | vs epoll |")
    print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    scenarios = []
    for (scenario, _) in merged:
        if scenario not in scenarios:
            scenarios.append(scenario)
    for scenario in scenarios:
        for server, backend in BACKEND_ROWS:
            m = merged.get((scenario, server))
            if m is None:
                continue
            epoll = merged.get((scenario, "switchboard-base-epoll" if server.startswith("switchboard-base") else "switchboard-epoll"))
            if m["idle"]:
                per = m["server_kib_per_connection"]
                base = epoll and epoll.get("server_kib_per_connection")
                print(f"| {scenario} | {server} | {backend} | – | – | – | – | – | – | "
                      f"{'–' if per is None else f'{per:.2f}'} | {ratio(per, base)} |")
                continue
            print(
                f"| {scenario} | {server} | {backend} | {fmt_rate(m['delivered_per_sec'])} | "
                f"{ratio(m['delivered_per_sec'], epoll and epoll.get('delivered_per_sec'))} | "
                f"{fmt_cpu(m['cpu'])} | {ratio(m['cpu'], epoll and epoll.get('cpu'))} | "
                f"{fmt_cpu(m['user_cpu'])} | {ratio(m['user_cpu'], epoll and epoll.get('user_cpu'))} | – | – |"
            )


if __name__ == "__main__":
    main()
