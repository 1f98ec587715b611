#!/usr/bin/env python3
"""Prints the scenario × server table from run.sh's all.jsonl as Markdown.

Columns: delivered msg/s and delivery ratio, latency p50/p99, server CPU µs per delivered
message (over the measured window), peak RSS, and each number's ratio to Switchboard's
(text dialect) in the same scenario. Idle rows show connect p99 and RSS per connection.
"""
import json
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


def ratio(v, base, higher_is_better=True):
    if v is None or base in (None, 0) or v == 0:
        return "–"
    return f"{v / base:.2f}×"


def main():
    rows = load(sys.argv[1])
    base = {}
    for r in rows:
        if r["server"] == "switchboard" and r.get("bench"):
            base[r["scenario"]] = r["bench"]
    print("| scenario | server | sent msg/s | delivered msg/s | ratio | p50 | p99 | server CPU µs/msg | peak RSS | msg/s vs SB | CPU/msg vs SB | notes |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    idle = []
    for r in rows:
        b = r.get("bench")
        if not b:
            print(f"| {r['scenario']} | {r['server']} | failed | | | | | | | | | |")
            continue
        if b.get("idle"):
            idle.append(r)
            continue
        sb = base.get(r["scenario"])
        cpu = b.get("server_cpu_us_per_msg")
        hwm = r.get("hwm_kib") or b.get("server_hwm_kib") or 0
        notes = []
        if b.get("closed_during_run"):
            notes.append(f"{b['closed_during_run']} conns closed by server")
        if b["delivered"] == 0 and b["sent"] > 0:
            notes.append("no measured message arrived before the drain ended (overloaded)")
        if b.get("failed"):
            notes.append(f"{b['failed']} connects failed")
        print(
            f"| {r['scenario']} | {r['server']} | {fmt_rate(b['sent'] / b['duration'])} | {fmt_rate(b['delivered_per_sec'])} | {b['delivery_ratio']:.3f} | "
            f"{fmt_us(b['latency_us']['p50'])} | {fmt_us(b['latency_us']['p99'])} | "
            f"{'–' if cpu is None else f'{cpu:.2f}'} | {hwm / 1024:.0f} MiB | "
            f"{ratio(b['delivered_per_sec'], sb and sb['delivered_per_sec'])} | "
            f"{ratio(cpu, sb and sb.get('server_cpu_us_per_msg'))} | {'; '.join(notes)} |"
        )
    if idle:
        print()
        print("| idle | server | connections open | connect p50 | connect p99 | connect max | RSS held | KiB per connection | vs SB |")
        print("|---|---|---:|---:|---:|---:|---:|---:|---:|")
        sb = base.get("idle")
        for r in idle:
            b = r["bench"]
            c = b["connect_ms"]
            per = b.get("server_kib_per_connection")
            print(
                f"| {r['scenario']} | {r['server']} | {b['opened']}/{b['connections']} | {c['p50']:.1f} ms | "
                f"{c['p99']:.1f} ms | {c['max']:.1f} ms | {(b.get('server_rss_kib') or 0) / 1024:.0f} MiB | "
                f"{'–' if per is None else f'{per:.2f}'} | "
                f"{ratio(per, sb and sb.get('server_kib_per_connection'))} |"
            )


if __name__ == "__main__":
    main()
